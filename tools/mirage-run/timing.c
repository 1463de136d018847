//===- timing.c - Running and timing a lowered program on a GPU -----------===//
//
// The launch plan is what lib/lower/host.c's host code does, re-derived
// from the μGraph with the same lib/lower functions (mg_lower_is_kernel,
// mg_lower_launch, mg_lower_smem_bytes), so the two cannot drift apart:
//  - a device buffer per root tensor, in its stored shape; a free view's
//    result has none and addresses its operand's buffer (host.c:
//    is_view_of_buffer);
//  - one launch per kernel op, in op order: the grid, block_threads
//    threads and dynamic shared memory of mg_lower_launch and
//    mg_lower_smem_bytes;
//  - kernel arguments: the op's operands, then its results (gpu.c), each an
//    identity-layout memref of the tensor's stored dims, offset 0.
// The PTX says how such a memref is passed: with upstream's default
// (convert-gpu-to-nvvm without use-bare-ptr-memref-call-conv) as its
// descriptor expanded into 3 + 2·rank 64-bit parameters: allocated
// pointer, aligned pointer, offset, sizes, strides (row-major); with bare
// pointers as one. The parameters of each entry are counted in the PTX
// and must match one of the two.
//
// Invariant: every device allocation made here is freed on every path
// (one cleanup label), the module is unloaded, events destroyed.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/lower.h"

//===--- The plan ---------------------------------------------------------===//

void mg_run_gpu_plan_free(MgRunGpuPlan *plan) {
  free(plan->buffer_bytes);
  free(plan->tensor_buffer);
  free(plan->launches);
  memset(plan, 0, sizeof *plan);
}

static void arg_of(const MgGraph *root, const MgRunGpuPlan *plan,
                   MgTensorId t, MgRunGpuArg *arg) {
  arg->buffer = plan->tensor_buffer[t];
  arg->rank = root->tensors[t].rank;
  mg_graph_stored_dims(root, t, arg->dims);
}

bool mg_run_gpu_plan_build(const MgProgram *p, const MgRunSignature *sig,
                           MgRunGpuPlan *plan, char *err, size_t err_size) {
  memset(plan, 0, sizeof *plan);
  const MgGraph *root = &p->graphs[0];
  uint32_t nt = root->num_tensors;
  plan->buffer_bytes = calloc(nt ? nt : 1, sizeof *plan->buffer_bytes);
  plan->tensor_buffer = calloc(nt ? nt : 1, sizeof *plan->tensor_buffer);
  plan->launches = calloc(root->num_ops ? root->num_ops : 1,
                          sizeof *plan->launches);
  if (!plan->buffer_bytes || !plan->tensor_buffer || !plan->launches) {
    snprintf(err, err_size, "out of memory");
    mg_run_gpu_plan_free(plan);
    return false;
  }
  // Operands precede results, so a free view finds its operand's buffer.
  for (MgTensorId t = 0; t < nt; t++) {
    const MgTensor *x = &root->tensors[t];
    const MgOp *producer = &root->ops[x->producer];
    if (producer->kind != MG_OP_INPUT &&
        mg_graph_view_is_free(root, producer)) {
      plan->tensor_buffer[t] = plan->tensor_buffer[producer->inputs[0]];
      continue;
    }
    plan->tensor_buffer[t] = plan->num_buffers;
    plan->buffer_bytes[plan->num_buffers++] =
        mg_tensor_numel(x) * (int64_t)mg_dtype_bytes((MgDType)x->dtype);
  }
  plan->num_inputs = sig->num_inputs;
  plan->num_outputs = sig->num_outputs;
  bool seen[MG_RUN_MAX_VALUES] = {false};
  for (MgOpId i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind == MG_OP_INPUT) {
      if (op->attr < 0 || (uint32_t)op->attr >= sig->num_inputs) {
        snprintf(err, err_size, "input %d is not an argument of the "
                 "function (%u arguments)", op->attr, sig->num_inputs);
        mg_run_gpu_plan_free(plan);
        return false;
      }
      uint32_t b = plan->tensor_buffer[op->outputs[0]];
      int64_t want = mg_run_numel(&sig->inputs[op->attr]) *
                     (int64_t)mg_dtype_bytes(sig->inputs[op->attr].dtype);
      if (plan->buffer_bytes[b] != want) {
        snprintf(err, err_size, "argument %d has %lld bytes, its tensor "
                 "%lld", op->attr, (long long)want,
                 (long long)plan->buffer_bytes[b]);
        mg_run_gpu_plan_free(plan);
        return false;
      }
      plan->input_buffer[op->attr] = b;
      seen[op->attr] = true;
      continue;
    }
    if (!mg_lower_is_kernel(p, i))
      continue;
    MgRunGpuLaunch *l = &plan->launches[plan->num_launches++];
    l->op = i;
    mg_lower_launch(p, i, l->grid, &l->threads);
    l->smem = mg_lower_smem_bytes(p, i);
    for (uint32_t k = 0; k < op->num_inputs + op->num_outputs; k++)
      arg_of(root, plan,
             k < op->num_inputs ? op->inputs[k]
                                : op->outputs[k - op->num_inputs],
             &l->args[l->num_args++]);
  }
  for (uint32_t k = 0; k < sig->num_inputs; k++)
    if (!seen[k]) {
      snprintf(err, err_size, "argument %u is not an input of the kernel "
               "graph", k);
      mg_run_gpu_plan_free(plan);
      return false;
    }
  if (root->num_outputs != sig->num_outputs) {
    snprintf(err, err_size, "the kernel graph has %u outputs, the function "
             "%u results", root->num_outputs, sig->num_outputs);
    mg_run_gpu_plan_free(plan);
    return false;
  }
  for (uint32_t k = 0; k < root->num_outputs; k++) {
    MgTensorId t = root->outputs[k];
    int64_t want = mg_run_numel(&sig->outputs[k]) *
                   (int64_t)mg_dtype_bytes(sig->outputs[k].dtype);
    if (mg_tensor_numel(&root->tensors[t]) *
            (int64_t)mg_dtype_bytes((MgDType)root->tensors[t].dtype) !=
        want) {
      snprintf(err, err_size, "result %u has %lld bytes, its tensor another "
               "size", k, (long long)want);
      mg_run_gpu_plan_free(plan);
      return false;
    }
    plan->output_tensor[k] = t;
  }
  return true;
}

int64_t mg_run_gpu_min_dram_bytes(const MgRunSignature *sig) {
  int64_t bytes = 0;
  for (uint32_t k = 0; k < sig->num_inputs; k++)
    bytes += mg_run_numel(&sig->inputs[k]) *
             (int64_t)mg_dtype_bytes(sig->inputs[k].dtype);
  for (uint32_t k = 0; k < sig->num_outputs; k++)
    bytes += mg_run_numel(&sig->outputs[k]) *
             (int64_t)mg_dtype_bytes(sig->outputs[k].dtype);
  return bytes;
}

//===--- PTX --------------------------------------------------------------===//

int mg_run_ptx_entry_params(const char *ptx, const char *entry) {
  size_t n = strlen(entry);
  for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 6, ".entry")) {
    const char *q = p + 6;
    if (*q != ' ' && *q != '\t')
      continue;
    while (*q == ' ' || *q == '\t')
      q++;
    if (strncmp(q, entry, n) != 0)
      continue;
    q += n;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
      q++;
    if (*q != '(')
      continue;
    const char *close = strchr(q, ')');
    if (!close)
      return -1;
    int count = 0;
    for (const char *r = strstr(q, ".param"); r && r < close;
         r = strstr(r + 6, ".param"))
      count++;
    return count;
  }
  return -1;
}

//===--- Running on the device --------------------------------------------===//

/// A failed driver call: "what: CUDA_ERROR_...: text" into err.
static bool failed(const MgCuda *cuda, MgCuResult r, const char *what,
                   char *err, size_t err_size) {
  if (r == MG_CUDA_SUCCESS)
    return false;
  char text[300];
  mg_cuda_error_text(cuda, r, text, sizeof text);
  snprintf(err, err_size, "%s: %s", what, text);
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/// Median of n > 0 values (sorts them).
static double median(double *v, uint32_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Copies a stored array (dims permuted by `perm`, see mg_graph_stored_dims)
/// into logical row-major order: logical dim d is stored dim perm[d]
/// (lib/lower's memref.transpose view, host.c's logical_copy).
static void stored_to_logical(const MgTensor *t, const int8_t *perm,
                              const int64_t *sdims, size_t elem,
                              const unsigned char *stored,
                              unsigned char *logical) {
  int64_t sstride[MG_MAX_DIMS], s = 1;
  for (uint32_t d = t->rank; d-- > 0;) {
    sstride[d] = s;
    s *= sdims[d];
  }
  int64_t n = mg_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    int64_t rest = i, off = 0;
    for (uint32_t d = t->rank; d-- > 0;) {
      int64_t idx = rest % t->dims[d];
      rest /= t->dims[d];
      off += idx * sstride[perm[d]];
    }
    memcpy(logical + (size_t)i * elem, stored + (size_t)off * elem, elem);
  }
}

/// Launches every kernel of the plan once, in order, on the default stream.
static bool launch_all(const MgCuda *cuda, const MgRunGpuPlan *plan,
                       MgCuFunction *functions, void ***params,
                       char *const *names, char *err, size_t err_size) {
  for (uint32_t j = 0; j < plan->num_launches; j++) {
    const MgRunGpuLaunch *l = &plan->launches[j];
    MgCuResult r = cuda->launch_kernel(
        functions[j], (unsigned)l->grid[0], (unsigned)l->grid[1],
        (unsigned)l->grid[2], (unsigned)l->threads, 1, 1, (unsigned)l->smem,
        NULL, params[j], NULL);
    char what[400];
    snprintf(what, sizeof what, "cuLaunchKernel(%s)", names[j]);
    if (failed(cuda, r, what, err, err_size))
      return false;
  }
  return true;
}

bool mg_run_gpu_time(const MgRunGpu *gpu, const MgRunGpuPlan *plan,
                     const MgProgram *program, const MgRunGpuImage *image,
                     void *const *inputs, void *const *outputs,
                     const MgRunTimeOptions *opt, MgRunTiming *timing,
                     char *err, size_t err_size) {
  const MgCuda *cuda = gpu->cuda;
  const MgGraph *root = &program->graphs[0];
  uint32_t nl = plan->num_launches;
  bool ok = false;
  MgCuModule module = NULL;
  MgCuEvent start = NULL, stop = NULL;
  MgCuDevicePtr flush = 0;
  size_t flush_bytes = 0;
  MgCuDevicePtr *dptr = calloc(plan->num_buffers + 1, sizeof *dptr);
  MgCuFunction *functions = calloc(nl + 1, sizeof *functions);
  void ***params = calloc(nl + 1, sizeof *params);
  uint64_t **words = calloc(nl + 1, sizeof *words);
  double *times = calloc(opt->runs + 1, sizeof *times);
  bool *conv_bare = calloc(nl + 1, sizeof *conv_bare); // bare pointers
  unsigned char *staging = NULL;
  char log[4096] = "", what[400];
  MgCuResult r;
  memset(timing, 0, sizeof *timing);
  if (!dptr || !functions || !params || !words || !times || !conv_bare) {
    snprintf(err, err_size, "out of memory");
    goto done;
  }

  // The module and its kernels, with what the PTX says of their parameters.
  if (nl) {
    int jit_options[2] = {MG_CU_JIT_ERROR_LOG_BUFFER,
                          MG_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *jit_values[2] = {log, (void *)(uintptr_t)sizeof log};
    r = cuda->module_load_data_ex(&module, image->data, 2, jit_options,
                                  jit_values);
    if (r != MG_CUDA_SUCCESS) {
      module = NULL;
      log[sizeof log - 1] = 0;
      char text[300];
      mg_cuda_error_text(cuda, r, text, sizeof text);
      snprintf(err, err_size, "cuModuleLoadDataEx(@%s): %s%s%.1500s",
               image->name, text, log[0] ? ": " : "", log);
      goto done;
    }
  }
  for (uint32_t j = 0; j < nl; j++) {
    const MgRunGpuLaunch *l = &plan->launches[j];
    const char *name = image->kernels[j];
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    if (failed(cuda, cuda->module_get_function(&functions[j], module, name),
               what, err, err_size))
      goto done;
    uint32_t descriptor = 0;
    for (uint32_t a = 0; a < l->num_args; a++)
      descriptor += 3 + 2 * l->args[a].rank;
    bool bare = false;
    if (image->is_ptx) {
      int n = mg_run_ptx_entry_params(image->data, name);
      if (n == (int)l->num_args && n != (int)descriptor) {
        bare = true;
      } else if (n != (int)descriptor) {
        snprintf(err, err_size, "kernel %s takes %d parameters in its PTX; "
                 "its %u memref arguments are %u as descriptors or %u as "
                 "bare pointers", name, n, l->num_args, descriptor,
                 l->num_args);
        goto done;
      }
    }
    conv_bare[j] = bare;
    uint32_t nw = bare ? l->num_args : descriptor;
    words[j] = calloc(nw + 1, sizeof **words);
    params[j] = calloc(nw + 1, sizeof **params);
    if (!words[j] || !params[j]) {
      snprintf(err, err_size, "out of memory");
      goto done;
    }
    if (l->smem > MG_CU_DEFAULT_SMEM_LIMIT) {
      int static_smem = 0;
      cuda->func_get_attribute(&static_smem,
                               MG_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                               functions[j]);
      if (gpu->device->smem_optin > 0 &&
          static_smem + l->smem > gpu->device->smem_optin) {
        snprintf(err, err_size, "kernel %s needs %lld bytes of shared "
                 "memory per block (%d static, %lld dynamic); the device "
                 "allows %lld", name, (long long)(static_smem + l->smem),
                 static_smem, (long long)l->smem,
                 (long long)gpu->device->smem_optin);
        goto done;
      }
      snprintf(what, sizeof what, "cuFuncSetAttribute(%s, "
               "MAX_DYNAMIC_SHARED_SIZE_BYTES, %lld)", name,
               (long long)l->smem);
      if (failed(cuda,
                 cuda->func_set_attribute(
                     functions[j],
                     MG_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                     (int)l->smem),
                 what, err, err_size))
        goto done;
    }
  }

  // Device buffers (cuMemAlloc aligns to at least 256 bytes, so the
  // kernels' 16-byte alignment assumption holds), inputs copied in.
  for (uint32_t b = 0; b < plan->num_buffers; b++) {
    size_t bytes = (size_t)plan->buffer_bytes[b];
    snprintf(what, sizeof what, "cuMemAlloc(%zu bytes)", bytes);
    if (failed(cuda, cuda->mem_alloc(&dptr[b], bytes ? bytes : 16), what,
               err, err_size)) {
      dptr[b] = 0;
      goto done;
    }
  }
  for (uint32_t k = 0; k < plan->num_inputs; k++) {
    uint32_t b = plan->input_buffer[k];
    snprintf(what, sizeof what, "cuMemcpyHtoD(argument %u)", k);
    if (plan->buffer_bytes[b] &&
        failed(cuda, cuda->memcpy_htod(dptr[b], inputs[k],
                                       (size_t)plan->buffer_bytes[b]),
               what, err, err_size))
      goto done;
  }
  // Parameters: each kernelParams[i] points at the 64-bit value of
  // parameter i (cuLaunchKernel copies them at the launch).
  for (uint32_t j = 0; j < nl; j++) {
    const MgRunGpuLaunch *l = &plan->launches[j];
    uint32_t w = 0;
    bool bare = conv_bare[j];
    for (uint32_t a = 0; a < l->num_args; a++) {
      const MgRunGpuArg *arg = &l->args[a];
      MgCuDevicePtr base = dptr[arg->buffer];
      words[j][w++] = base; // allocated
      if (bare)
        continue;
      words[j][w++] = base; // aligned
      words[j][w++] = 0;    // offset
      for (uint32_t d = 0; d < arg->rank; d++)
        words[j][w++] = (uint64_t)arg->dims[d];
      int64_t stride = 1;
      uint32_t first = w;
      w += arg->rank;
      for (uint32_t d = arg->rank; d-- > 0;) {
        words[j][first + d] = (uint64_t)stride;
        stride *= arg->dims[d];
      }
    }
    for (uint32_t i = 0; i < w; i++)
      params[j][i] = &words[j][i];
  }

  // Writing twice the L2's bytes between runs evicts what the previous
  // run left there, so every run reads its inputs from DRAM as the cost
  // model assumes.
  if (opt->flush_l2) {
    flush_bytes = gpu->device->l2_bytes > 0
                      ? 2 * (size_t)gpu->device->l2_bytes
                      : (size_t)64 << 20;
    if (failed(cuda, cuda->mem_alloc(&flush, flush_bytes),
               "cuMemAlloc(L2 flush buffer)", err, err_size)) {
      flush = 0;
      goto done;
    }
  }
  if (failed(cuda, cuda->event_create(&start, MG_CU_EVENT_DEFAULT),
             "cuEventCreate", err, err_size)) {
    start = NULL;
    goto done;
  }
  if (failed(cuda, cuda->event_create(&stop, MG_CU_EVENT_DEFAULT),
             "cuEventCreate", err, err_size)) {
    stop = NULL;
    goto done;
  }
  for (uint32_t w = 0; w < opt->warmup; w++)
    if (!launch_all(cuda, plan, functions, params, image->kernels, err,
                    err_size))
      goto done;
  if (failed(cuda, cuda->ctx_synchronize(), "warm-up runs (cuCtxSynchronize)",
             err, err_size))
    goto done;
  for (uint32_t run = 0; run < opt->runs; run++) {
    if (flush &&
        failed(cuda, cuda->memset_d8(flush, (unsigned char)run, flush_bytes),
               "cuMemsetD8(L2 flush buffer)", err, err_size))
      goto done;
    if (failed(cuda, cuda->event_record(start, NULL), "cuEventRecord", err,
               err_size) ||
        !launch_all(cuda, plan, functions, params, image->kernels, err,
                    err_size) ||
        failed(cuda, cuda->event_record(stop, NULL), "cuEventRecord", err,
               err_size) ||
        failed(cuda, cuda->event_synchronize(stop),
               "timed run (cuEventSynchronize)", err, err_size))
      goto done;
    float ms = 0;
    if (failed(cuda, cuda->event_elapsed_time(&ms, start, stop),
               "cuEventElapsedTime", err, err_size))
      goto done;
    times[run] = 1e3 * (double)ms;
  }
  if (failed(cuda, cuda->ctx_synchronize(), "cuCtxSynchronize", err,
             err_size))
    goto done;
  timing->runs = opt->runs;
  if (opt->runs) {
    timing->median_us = median(times, opt->runs);
    timing->min_us = times[0];
  }

  // Results of the last run, in logical order.
  for (uint32_t k = 0; k < plan->num_outputs; k++) {
    MgTensorId t = plan->output_tensor[k];
    uint32_t b = plan->tensor_buffer[t];
    size_t bytes = (size_t)plan->buffer_bytes[b];
    const MgTensor *x = &root->tensors[t];
    int8_t perm[MG_MAX_DIMS];
    bool layout = mg_graph_tensor_perm(root, x, perm);
    void *dst = outputs[k];
    if (layout) {
      free(staging);
      staging = malloc(bytes ? bytes : 1);
      if (!staging) {
        snprintf(err, err_size, "out of memory");
        goto done;
      }
      dst = staging;
    }
    snprintf(what, sizeof what, "cuMemcpyDtoH(result %u)", k);
    if (bytes && failed(cuda, cuda->memcpy_dtoh(dst, dptr[b], bytes), what,
                        err, err_size))
      goto done;
    if (layout) {
      int64_t sdims[MG_MAX_DIMS];
      mg_graph_stored_dims(root, t, sdims);
      stored_to_logical(x, perm, sdims, mg_dtype_bytes((MgDType)x->dtype),
                        staging, outputs[k]);
    }
  }
  ok = true;

done:
  if (stop)
    cuda->event_destroy(stop);
  if (start)
    cuda->event_destroy(start);
  if (flush)
    cuda->mem_free(flush);
  for (uint32_t b = 0; dptr && b < plan->num_buffers; b++)
    if (dptr[b])
      cuda->mem_free(dptr[b]);
  if (module)
    cuda->module_unload(module);
  for (uint32_t j = 0; j < nl; j++) {
    if (words)
      free(words[j]);
    if (params)
      free(params[j]);
  }
  free(staging);
  free(dptr);
  free(functions);
  free(params);
  free(words);
  free(times);
  free(conv_bare);
  return ok;
}
