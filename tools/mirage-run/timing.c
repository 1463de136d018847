//===- timing.c - Running and timing a lowered program on a GPU -----------===//
//
// The launch plan is what lib/lower/form/host.c's host code does, re-derived
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
// (a GpuRun holds them; release() frees them whichever step failed), the
// module is unloaded, events destroyed.
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

// What one mg_run_gpu_time call holds on the device and the host; each
// step below fills part of it and release() frees all of it, whichever
// step failed.
typedef struct GpuRun {
  const MgCuda *cuda;
  const MgRunGpu *gpu;
  const MgRunGpuPlan *plan;
  const MgRunGpuImage *image;
  char *err;
  size_t err_size;
  MgCuModule module;
  MgCuEvent start, stop;
  MgCuDevicePtr flush; // the L2 flush buffer, 0 when none
  size_t flush_bytes;
  MgCuDevicePtr *dptr;     // per buffer
  MgCuFunction *functions; // per launch
  void ***params;          // per launch: kernelParams
  uint64_t **words;        // per launch: the values params point at
  bool *conv_bare;         // per launch: bare pointers, not descriptors
  double *times;           // per timed run, microseconds
} GpuRun;

/// Launches every kernel of the plan once, in order, on the default stream.
static bool launch_all(const GpuRun *g) {
  const MgCuda *cuda = g->cuda;
  for (uint32_t j = 0; j < g->plan->num_launches; j++) {
    const MgRunGpuLaunch *l = &g->plan->launches[j];
    MgCuResult r = cuda->launch_kernel(
        g->functions[j], (unsigned)l->grid[0], (unsigned)l->grid[1],
        (unsigned)l->grid[2], (unsigned)l->threads, 1, 1, (unsigned)l->smem,
        NULL, g->params[j], NULL);
    char what[400];
    snprintf(what, sizeof what, "cuLaunchKernel(%s)", g->image->kernels[j]);
    if (failed(cuda, r, what, g->err, g->err_size))
      return false;
  }
  return true;
}

static bool run_alloc(GpuRun *g, uint32_t runs) {
  uint32_t nl = g->plan->num_launches;
  g->dptr = calloc(g->plan->num_buffers + 1, sizeof *g->dptr);
  g->functions = calloc(nl + 1, sizeof *g->functions);
  g->params = calloc(nl + 1, sizeof *g->params);
  g->words = calloc(nl + 1, sizeof *g->words);
  g->times = calloc(runs + 1, sizeof *g->times);
  g->conv_bare = calloc(nl + 1, sizeof *g->conv_bare);
  if (!g->dptr || !g->functions || !g->params || !g->words || !g->times ||
      !g->conv_bare) {
    snprintf(g->err, g->err_size, "out of memory");
    return false;
  }
  return true;
}

// The module, with the JIT's log in the message when it does not load.
static bool load_module(GpuRun *g) {
  if (!g->plan->num_launches)
    return true;
  char log[4096] = "";
  int jit_options[2] = {MG_CU_JIT_ERROR_LOG_BUFFER,
                        MG_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *jit_values[2] = {log, (void *)(uintptr_t)sizeof log};
  MgCuResult r = g->cuda->module_load_data_ex(&g->module, g->image->data, 2,
                                              jit_options, jit_values);
  if (r == MG_CUDA_SUCCESS)
    return true;
  g->module = NULL;
  log[sizeof log - 1] = 0;
  char text[300];
  mg_cuda_error_text(g->cuda, r, text, sizeof text);
  snprintf(g->err, g->err_size, "cuModuleLoadDataEx(@%s): %s%s%.1500s",
           g->image->name, text, log[0] ? ": " : "", log);
  return false;
}

// Kernel j's dynamic shared memory beyond the default limit: within what
// the device allows, and opted in.
static bool allow_smem(GpuRun *g, uint32_t j, const char *name) {
  const MgRunGpuLaunch *l = &g->plan->launches[j];
  const MgCudaDevice *device = g->gpu->device;
  if (l->smem <= MG_CU_DEFAULT_SMEM_LIMIT)
    return true;
  int static_smem = 0;
  g->cuda->func_get_attribute(&static_smem,
                              MG_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                              g->functions[j]);
  if (device->smem_optin > 0 && static_smem + l->smem > device->smem_optin) {
    snprintf(g->err, g->err_size, "kernel %s needs %lld bytes of shared "
             "memory per block (%d static, %lld dynamic); the device "
             "allows %lld", name, (long long)(static_smem + l->smem),
             static_smem, (long long)l->smem, (long long)device->smem_optin);
    return false;
  }
  char what[400];
  snprintf(what, sizeof what, "cuFuncSetAttribute(%s, "
           "MAX_DYNAMIC_SHARED_SIZE_BYTES, %lld)", name, (long long)l->smem);
  return !failed(g->cuda,
                 g->cuda->func_set_attribute(
                     g->functions[j],
                     MG_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                     (int)l->smem),
                 what, g->err, g->err_size);
}

// Kernel j of the module, with what the PTX says of its parameters and
// room for their values.
static bool prepare_kernel(GpuRun *g, uint32_t j) {
  const MgRunGpuLaunch *l = &g->plan->launches[j];
  const char *name = g->image->kernels[j];
  char what[400];
  snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
  if (failed(g->cuda,
             g->cuda->module_get_function(&g->functions[j], g->module, name),
             what, g->err, g->err_size))
    return false;
  uint32_t descriptor = 0;
  for (uint32_t a = 0; a < l->num_args; a++)
    descriptor += 3 + 2 * l->args[a].rank;
  bool bare = false;
  if (g->image->is_ptx) {
    int n = mg_run_ptx_entry_params(g->image->data, name);
    if (n == (int)l->num_args && n != (int)descriptor) {
      bare = true;
    } else if (n != (int)descriptor) {
      snprintf(g->err, g->err_size, "kernel %s takes %d parameters in its "
               "PTX; its %u memref arguments are %u as descriptors or %u as "
               "bare pointers", name, n, l->num_args, descriptor,
               l->num_args);
      return false;
    }
  }
  g->conv_bare[j] = bare;
  uint32_t nw = bare ? l->num_args : descriptor;
  g->words[j] = calloc(nw + 1, sizeof **g->words);
  g->params[j] = calloc(nw + 1, sizeof **g->params);
  if (!g->words[j] || !g->params[j]) {
    snprintf(g->err, g->err_size, "out of memory");
    return false;
  }
  return allow_smem(g, j, name);
}

// Device buffers (cuMemAlloc aligns to at least 256 bytes, so the kernels'
// 16-byte alignment assumption holds), inputs copied in.
static bool upload_inputs(GpuRun *g, void *const *inputs) {
  const MgRunGpuPlan *plan = g->plan;
  char what[400];
  for (uint32_t b = 0; b < plan->num_buffers; b++) {
    size_t bytes = (size_t)plan->buffer_bytes[b];
    snprintf(what, sizeof what, "cuMemAlloc(%zu bytes)", bytes);
    if (failed(g->cuda, g->cuda->mem_alloc(&g->dptr[b], bytes ? bytes : 16),
               what, g->err, g->err_size)) {
      g->dptr[b] = 0;
      return false;
    }
  }
  for (uint32_t k = 0; k < plan->num_inputs; k++) {
    uint32_t b = plan->input_buffer[k];
    snprintf(what, sizeof what, "cuMemcpyHtoD(argument %u)", k);
    if (plan->buffer_bytes[b] &&
        failed(g->cuda, g->cuda->memcpy_htod(g->dptr[b], inputs[k],
                                             (size_t)plan->buffer_bytes[b]),
               what, g->err, g->err_size))
      return false;
  }
  return true;
}

// Parameters: each kernelParams[i] points at the 64-bit value of
// parameter i (cuLaunchKernel copies them at the launch).
static void fill_params(GpuRun *g) {
  for (uint32_t j = 0; j < g->plan->num_launches; j++) {
    const MgRunGpuLaunch *l = &g->plan->launches[j];
    uint64_t *words = g->words[j];
    uint32_t w = 0;
    for (uint32_t a = 0; a < l->num_args; a++) {
      const MgRunGpuArg *arg = &l->args[a];
      MgCuDevicePtr base = g->dptr[arg->buffer];
      words[w++] = base; // allocated
      if (g->conv_bare[j])
        continue;
      words[w++] = base; // aligned
      words[w++] = 0;    // offset
      for (uint32_t d = 0; d < arg->rank; d++)
        words[w++] = (uint64_t)arg->dims[d];
      int64_t stride = 1;
      uint32_t first = w;
      w += arg->rank;
      for (uint32_t d = arg->rank; d-- > 0;) {
        words[first + d] = (uint64_t)stride;
        stride *= arg->dims[d];
      }
    }
    for (uint32_t i = 0; i < w; i++)
      g->params[j][i] = &words[i];
  }
}

// The L2 flush buffer (when asked) and the two events.
static bool create_timers(GpuRun *g, bool flush_l2) {
  // Writing twice the L2's bytes between runs evicts what the previous
  // run left there, so every run reads its inputs from DRAM as the cost
  // model assumes.
  if (flush_l2) {
    g->flush_bytes = g->gpu->device->l2_bytes > 0
                         ? 2 * (size_t)g->gpu->device->l2_bytes
                         : (size_t)64 << 20;
    if (failed(g->cuda, g->cuda->mem_alloc(&g->flush, g->flush_bytes),
               "cuMemAlloc(L2 flush buffer)", g->err, g->err_size)) {
      g->flush = 0;
      return false;
    }
  }
  if (failed(g->cuda, g->cuda->event_create(&g->start, MG_CU_EVENT_DEFAULT),
             "cuEventCreate", g->err, g->err_size)) {
    g->start = NULL;
    return false;
  }
  if (failed(g->cuda, g->cuda->event_create(&g->stop, MG_CU_EVENT_DEFAULT),
             "cuEventCreate", g->err, g->err_size)) {
    g->stop = NULL;
    return false;
  }
  return true;
}

// One timed run (after the flush, when asked), in microseconds.
static bool timed_run(GpuRun *g, uint32_t run, double *us) {
  const MgCuda *cuda = g->cuda;
  if (g->flush &&
      failed(cuda, cuda->memset_d8(g->flush, (unsigned char)run,
                                   g->flush_bytes),
             "cuMemsetD8(L2 flush buffer)", g->err, g->err_size))
    return false;
  if (failed(cuda, cuda->event_record(g->start, NULL), "cuEventRecord",
             g->err, g->err_size) ||
      !launch_all(g) ||
      failed(cuda, cuda->event_record(g->stop, NULL), "cuEventRecord",
             g->err, g->err_size) ||
      failed(cuda, cuda->event_synchronize(g->stop),
             "timed run (cuEventSynchronize)", g->err, g->err_size))
    return false;
  float ms = 0;
  if (failed(cuda, cuda->event_elapsed_time(&ms, g->start, g->stop),
             "cuEventElapsedTime", g->err, g->err_size))
    return false;
  *us = 1e3 * (double)ms;
  return true;
}

// The warm-up runs, then the timed ones; their median and minimum.
static bool time_runs(GpuRun *g, const MgRunTimeOptions *opt,
                      MgRunTiming *timing) {
  for (uint32_t w = 0; w < opt->warmup; w++)
    if (!launch_all(g))
      return false;
  if (failed(g->cuda, g->cuda->ctx_synchronize(),
             "warm-up runs (cuCtxSynchronize)", g->err, g->err_size))
    return false;
  for (uint32_t run = 0; run < opt->runs; run++)
    if (!timed_run(g, run, &g->times[run]))
      return false;
  if (failed(g->cuda, g->cuda->ctx_synchronize(), "cuCtxSynchronize", g->err,
             g->err_size))
    return false;
  timing->runs = opt->runs;
  if (opt->runs) {
    timing->median_us = median(g->times, opt->runs);
    timing->min_us = g->times[0];
  }
  return true;
}

// Results of the last run, in logical order.
static bool download_results(GpuRun *g, const MgGraph *root,
                             void *const *outputs) {
  const MgRunGpuPlan *plan = g->plan;
  unsigned char *staging = NULL;
  bool ok = true;
  for (uint32_t k = 0; ok && k < plan->num_outputs; k++) {
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
        snprintf(g->err, g->err_size, "out of memory");
        return false;
      }
      dst = staging;
    }
    char what[400];
    snprintf(what, sizeof what, "cuMemcpyDtoH(result %u)", k);
    ok = !bytes || !failed(g->cuda, g->cuda->memcpy_dtoh(dst, g->dptr[b],
                                                         bytes),
                           what, g->err, g->err_size);
    if (ok && layout) {
      int64_t sdims[MG_MAX_DIMS];
      mg_graph_stored_dims(root, t, sdims);
      stored_to_logical(x, perm, sdims, mg_dtype_bytes((MgDType)x->dtype),
                        staging, outputs[k]);
    }
  }
  free(staging);
  return ok;
}

static void release(GpuRun *g) {
  const MgCuda *cuda = g->cuda;
  if (g->stop)
    cuda->event_destroy(g->stop);
  if (g->start)
    cuda->event_destroy(g->start);
  if (g->flush)
    cuda->mem_free(g->flush);
  for (uint32_t b = 0; g->dptr && b < g->plan->num_buffers; b++)
    if (g->dptr[b])
      cuda->mem_free(g->dptr[b]);
  if (g->module)
    cuda->module_unload(g->module);
  for (uint32_t j = 0; j < g->plan->num_launches; j++) {
    if (g->words)
      free(g->words[j]);
    if (g->params)
      free(g->params[j]);
  }
  free(g->dptr);
  free(g->functions);
  free(g->params);
  free(g->words);
  free(g->times);
  free(g->conv_bare);
}

bool mg_run_gpu_time(const MgRunGpu *gpu, const MgRunGpuJob *job,
                     const MgRunTimeOptions *opt, MgRunTiming *timing,
                     char *err, size_t err_size) {
  const MgRunGpuPlan *plan = job->plan;
  GpuRun g = {.cuda = gpu->cuda, .gpu = gpu, .plan = plan,
              .image = job->image, .err = err, .err_size = err_size};
  memset(timing, 0, sizeof *timing);
  bool ok = run_alloc(&g, opt->runs) && load_module(&g);
  for (uint32_t j = 0; ok && j < plan->num_launches; j++)
    ok = prepare_kernel(&g, j);
  ok = ok && upload_inputs(&g, job->inputs);
  if (ok)
    fill_params(&g);
  ok = ok && create_timers(&g, opt->flush_l2) && time_runs(&g, opt, timing) &&
       download_results(&g, &job->program->graphs[0], job->outputs);
  release(&g);
  return ok;
}
