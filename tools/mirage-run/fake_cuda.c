//===- fake_cuda.c - A stand-in for libcuda.so.1 that runs no kernel ------===//
//
// Test double for mirage-run --time on machines without a GPU: the tests
// point MIRAGE_CUDA_LIBRARY at this library. It exports the driver entry
// points mirage-run looks up (driver.c), under the names libcuda exports,
// and keeps "device memory" in host memory, so copies in and out are real.
// Kernels are not run: a launch checks what it is given against the PTX
// (the entry exists, the parameter count, every .ptr parameter pointing
// into an allocation, threads within .maxntid, dynamic shared memory within
// what the kernel opted in to) and, with MIRAGE_FAKE_CUDA_LOG set, prints
// it on stderr with pointers as b<allocation>[+offset]. Time is a counter
// that each launch advances by 10 µs, so event timings are exact.
//
// MIRAGE_FAKE_CUDA selects a failure: no-device (cuInit returns
// CUDA_ERROR_NO_DEVICE), zero-devices, stub (CUDA_ERROR_STUB_LIBRARY, as
// the toolkit's stubs/libcuda.so), bad-ptx (cuModuleLoadDataEx rejects the
// PTX with an error log), sm_75 (an older device), no-clock (no memory
// clock attribute: the bandwidth comes from the device name).
// At exit, with logging on, allocations, modules and events never freed
// are reported.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  NOT_INITIALIZED = 3,
  STUB_LIBRARY = 34,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_PTX = 218,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
};

#define MAX_ALLOCS 4096
#define MAX_PARAMS 256
#define CLOCK_PER_LAUNCH_NS 10000

typedef struct Alloc {
  unsigned char *base;
  size_t size;
  unsigned id;
} Alloc;

typedef struct Function Function;

typedef struct Module {
  char *ptx;
  Function **functions; // handed out, freed with the module
  unsigned num_functions;
  int magic;
} Module;

struct Function {
  char name[256];
  int num_params;
  int param_bytes[MAX_PARAMS];
  bool param_ptr[MAX_PARAMS];
  long maxntid; // product of .maxntid, 0 when absent
  int max_dynamic_smem;
  int magic;
};

typedef struct Event {
  long long ns;
  bool recorded;
} Event;

// The fake's state: one process, one thread.
static struct {
  bool initialized;
  Alloc allocs[MAX_ALLOCS];
  unsigned num_allocs, next_id;
  long long clock_ns;
  int modules, events;
} fake;

static const char *mode(void) {
  const char *m = getenv("MIRAGE_FAKE_CUDA");
  return m ? m : "";
}

static bool logging(void) { return getenv("MIRAGE_FAKE_CUDA_LOG") != NULL; }

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  if (!logging())
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fake-cuda: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

static void complain(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fake-cuda: error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

/// The allocation holding [p, p + n), or NULL.
static Alloc *find(CUdeviceptr p, size_t n) {
  for (unsigned i = 0; i < fake.num_allocs; i++) {
    Alloc *a = &fake.allocs[i];
    uintptr_t b = (uintptr_t)a->base;
    if (p >= b && p - b <= a->size && n <= a->size - (p - b))
      return a;
  }
  return NULL;
}

static void pointer_text(CUdeviceptr p, char *out, size_t size) {
  Alloc *a = find(p, 0);
  if (!a)
    snprintf(out, size, "0x%llx", p);
  else if (p == (uintptr_t)a->base)
    snprintf(out, size, "b%u", a->id);
  else
    snprintf(out, size, "b%u+%llu", a->id, p - (uintptr_t)a->base);
}

__attribute__((destructor)) static void report_leaks(void) {
  if (!logging())
    return;
  if (fake.num_allocs || fake.modules || fake.events)
    say("at exit: %u allocation(s), %d module(s), %d event(s) not freed",
        fake.num_allocs, fake.modules, fake.events);
  else if (fake.initialized)
    say("at exit: everything freed");
}

//===--- Initialization and the device ------------------------------------===//

CUresult cuInit(unsigned int flags) {
  if (flags)
    return INVALID_VALUE;
  if (!strcmp(mode(), "no-device"))
    return NO_DEVICE;
  if (!strcmp(mode(), "stub"))
    return STUB_LIBRARY;
  fake.initialized = true;
  return SUCCESS;
}

CUresult cuDriverGetVersion(int *version) {
  if (!version)
    return INVALID_VALUE;
  *version = 12040;
  return SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  if (!fake.initialized)
    return NOT_INITIALIZED;
  *count = strcmp(mode(), "zero-devices") ? 1 : 0;
  return SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (!fake.initialized)
    return NOT_INITIALIZED;
  if (ordinal != 0)
    return INVALID_DEVICE;
  *device = 0;
  return SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice device) {
  if (device != 0 || len <= 0)
    return INVALID_VALUE;
  snprintf(name, (size_t)len, "NVIDIA H100 80GB HBM3 (fake)");
  return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  if (device != 0)
    return INVALID_DEVICE;
  bool old = !strcmp(mode(), "sm_75");
  switch (attribute) {
  case 16: *value = 132; break;                                  // SMs
  case 36: *value = strcmp(mode(), "no-clock") ? 2619000 : 0; break; // kHz
  case 37: *value = 5120; break;                                 // bus bits
  case 38: *value = 4 << 20; break;                              // L2
  case 75: *value = old ? 7 : 9; break;
  case 76: *value = old ? 5 : 0; break;
  case 97: *value = 232448; break;                               // optin
  default: return INVALID_VALUE;
  }
  return SUCCESS;
}

static int context_dummy;

CUresult cuDevicePrimaryCtxRetain(void **context, CUdevice device) {
  if (device != 0)
    return INVALID_DEVICE;
  *context = &context_dummy;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  return device == 0 ? SUCCESS : INVALID_DEVICE;
}

CUresult cuCtxSetCurrent(void *context) {
  return !context || context == &context_dummy ? SUCCESS : INVALID_VALUE;
}

CUresult cuCtxSynchronize(void) { return SUCCESS; }

//===--- Modules and functions --------------------------------------------===//

CUresult cuModuleLoadDataEx(Module **module, const void *image,
                            unsigned int num_options, int *options,
                            void **values) {
  const char *ptx = image;
  char *error_log = NULL;
  unsigned error_size = 0;
  for (unsigned i = 0; i < num_options; i++) {
    if (options[i] == 5)
      error_log = values[i];
    else if (options[i] == 6)
      error_size = (unsigned)(uintptr_t)values[i];
  }
  if (!strstr(ptx, ".version") || !strstr(ptx, ".target") ||
      !strcmp(mode(), "bad-ptx")) {
    if (error_log && error_size)
      snprintf(error_log, error_size, "ptxas fatal   : fake rejection");
    return INVALID_PTX;
  }
  Module *m = calloc(1, sizeof *m);
  if (!m || !(m->ptx = strdup(ptx))) {
    free(m);
    return INVALID_VALUE;
  }
  m->magic = 0x6d6f64;
  fake.modules++;
  const char *t = strstr(ptx, ".target");
  say("module loaded: PTX %.*s", (int)strcspn(t, "\n"), t);
  *module = m;
  return SUCCESS;
}

CUresult cuModuleUnload(Module *m) {
  if (!m || m->magic != 0x6d6f64)
    return INVALID_HANDLE;
  m->magic = 0;
  for (unsigned i = 0; i < m->num_functions; i++) {
    m->functions[i]->magic = 0;
    free(m->functions[i]);
  }
  free(m->functions);
  free(m->ptx);
  free(m);
  fake.modules--;
  return SUCCESS;
}

/// Bytes of a PTX parameter type (.u64, .b32, ...); 0 for others.
static int type_bytes(const char *decl, size_t len) {
  static const struct {
    const char *t;
    int bytes;
  } types[] = {{".u64", 8}, {".b64", 8}, {".s64", 8}, {".f64", 8},
               {".u32", 4}, {".b32", 4}, {".s32", 4}, {".f32", 4}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    const char *p = strstr(decl, types[i].t);
    if (p && p < decl + len)
      return types[i].bytes;
  }
  return 0;
}

CUresult cuModuleGetFunction(Function **function, Module *m,
                             const char *name) {
  if (!m || m->magic != 0x6d6f64)
    return INVALID_HANDLE;
  size_t n = strlen(name);
  const char *open = NULL;
  for (const char *p = strstr(m->ptx, ".entry "); p;
       p = strstr(p + 7, ".entry ")) {
    if (!strncmp(p + 7, name, n) && p[7 + n] == '(') {
      open = p + 7 + n;
      break;
    }
  }
  if (!open)
    return NOT_FOUND;
  Function *f = calloc(1, sizeof *f);
  Function **list = realloc(m->functions,
                            (m->num_functions + 1) * sizeof *list);
  if (!f || !list) {
    free(f);
    return INVALID_VALUE;
  }
  m->functions = list;
  snprintf(f->name, sizeof f->name, "%s", name);
  const char *close = strchr(open, ')');
  for (const char *p = strstr(open, ".param"); p && p < close;
       p = strstr(p + 6, ".param")) {
    if (f->num_params == MAX_PARAMS) {
      free(f);
      return INVALID_VALUE;
    }
    size_t len = strcspn(p, ",)");
    f->param_bytes[f->num_params] = type_bytes(p, len);
    const char *ptr = strstr(p, ".ptr");
    f->param_ptr[f->num_params] = ptr && ptr < p + len;
    f->num_params++;
  }
  const char *body = strchr(close, '{');
  const char *ntid = strstr(close, ".maxntid");
  if (ntid && (!body || ntid < body)) {
    long x = 1, y = 1, z = 1;
    sscanf(ntid + 8, " %ld , %ld , %ld", &x, &y, &z);
    f->maxntid = x * y * z;
  }
  f->magic = 0x66756e;
  m->functions[m->num_functions++] = f; // it lives as long as its module
  *function = f;
  return SUCCESS;
}

CUresult cuFuncGetAttribute(int *value, int attribute, Function *f) {
  if (!f || f->magic != 0x66756e)
    return INVALID_HANDLE;
  switch (attribute) {
  case 1: *value = 16; break; // static shared memory
  case 4: *value = 32; break; // registers
  case 8: *value = f->max_dynamic_smem; break;
  default: return INVALID_VALUE;
  }
  return SUCCESS;
}

CUresult cuFuncSetAttribute(Function *f, int attribute, int value) {
  if (!f || f->magic != 0x66756e)
    return INVALID_HANDLE;
  if (attribute != 8 || value < 0 || value + 16 > 232448)
    return INVALID_VALUE;
  f->max_dynamic_smem = value;
  say("%s: max dynamic shared memory %d", f->name, value);
  return SUCCESS;
}

//===--- Memory -----------------------------------------------------------===//

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (!bytes || fake.num_allocs == MAX_ALLOCS)
    return INVALID_VALUE;
  // 256-byte aligned, as cuMemAlloc's are.
  void *p = NULL;
  if (posix_memalign(&p, 256, bytes))
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  memset(p, 0, bytes);
  Alloc *a = &fake.allocs[fake.num_allocs++];
  a->base = p;
  a->size = bytes;
  a->id = fake.next_id++;
  *pointer = (uintptr_t)p;
  return SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  for (unsigned i = 0; i < fake.num_allocs; i++)
    if ((uintptr_t)fake.allocs[i].base == pointer) {
      free(fake.allocs[i].base);
      fake.allocs[i] = fake.allocs[--fake.num_allocs];
      return SUCCESS;
    }
  complain("cuMemFree of 0x%llx, not an allocation", pointer);
  return INVALID_VALUE;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  if (!find(dst, bytes)) {
    complain("cuMemcpyHtoD of %zu bytes to 0x%llx: out of bounds", bytes,
             dst);
    return INVALID_VALUE;
  }
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  if (!find(src, bytes)) {
    complain("cuMemcpyDtoH of %zu bytes from 0x%llx: out of bounds", bytes,
             src);
    return INVALID_VALUE;
  }
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n) {
  if (!find(dst, n)) {
    complain("cuMemsetD8 of %zu bytes at 0x%llx: out of bounds", n, dst);
    return INVALID_VALUE;
  }
  memset((void *)(uintptr_t)dst, value, n);
  return SUCCESS;
}

//===--- Launches and events ----------------------------------------------===//

CUresult cuLaunchKernel(Function *f, unsigned int gx, unsigned int gy,
                        unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int smem, void *stream,
                        void **params, void **extra) {
  if (!f || f->magic != 0x66756e)
    return INVALID_HANDLE;
  if (stream || extra || !gx || !gy || !gz || !bx || !by || !bz ||
      gy > 65535 || gz > 65535 || (long)bx * by * bz > 1024 ||
      (f->maxntid && (long)bx * by * bz > f->maxntid) ||
      (smem > 49152 && (int)smem > f->max_dynamic_smem) ||
      (f->num_params && !params)) {
    complain("%s: bad launch: grid %ux%ux%u block %ux%ux%u (.maxntid %ld) "
             "smem %u (opted in: %d)", f->name, gx, gy, gz, bx, by, bz,
             f->maxntid, smem, f->max_dynamic_smem);
    return INVALID_VALUE;
  }
  char line[8192];
  size_t len = (size_t)snprintf(line, sizeof line, "launch %s grid %ux%ux%u "
                                "block %u smem %u:", f->name, gx, gy, gz,
                                bx * by * bz, smem);
  for (int i = 0; i < f->num_params; i++) {
    unsigned long long v = 0;
    if (f->param_bytes[i] == 8)
      memcpy(&v, params[i], 8);
    else if (f->param_bytes[i] == 4) {
      uint32_t w;
      memcpy(&w, params[i], 4);
      v = w;
    }
    char text[64];
    if (f->param_ptr[i]) {
      if (!find(v, 0)) {
        complain("%s: parameter %d (.ptr) is 0x%llx, not device memory",
                 f->name, i, v);
        return INVALID_VALUE;
      }
      pointer_text(v, text, sizeof text);
    } else {
      snprintf(text, sizeof text, "%llu", v);
    }
    if (len < sizeof line)
      len += (size_t)snprintf(line + len, sizeof line - len, " %s", text);
  }
  say("%s", line);
  fake.clock_ns += CLOCK_PER_LAUNCH_NS;
  return SUCCESS;
}

CUresult cuEventCreate(Event **event, unsigned int flags) {
  if (flags)
    return INVALID_VALUE;
  if (!(*event = calloc(1, sizeof **event)))
    return INVALID_VALUE;
  fake.events++;
  return SUCCESS;
}

CUresult cuEventRecord(Event *event, void *stream) {
  if (!event || stream)
    return INVALID_VALUE;
  event->ns = fake.clock_ns;
  event->recorded = true;
  return SUCCESS;
}

CUresult cuEventSynchronize(Event *event) {
  return event && event->recorded ? SUCCESS : INVALID_HANDLE;
}

// Only the plain name, to exercise mirage-run's fallback from the _v2.
CUresult cuEventElapsedTime(float *ms, Event *start, Event *end) {
  if (!start || !end || !start->recorded || !end->recorded)
    return INVALID_HANDLE;
  *ms = (float)((double)(end->ns - start->ns) / 1e6);
  return SUCCESS;
}

CUresult cuEventDestroy_v2(Event *event) {
  if (!event)
    return INVALID_HANDLE;
  free(event);
  fake.events--;
  return SUCCESS;
}

//===--- Errors -----------------------------------------------------------===//

static const struct {
  CUresult code;
  const char *name, *text;
} errors[] = {
    {SUCCESS, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
     "CUDA driver is a stub library"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

CUresult cuGetErrorName(CUresult error, const char **name) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == error) {
      *name = errors[i].name;
      return SUCCESS;
    }
  *name = NULL;
  return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == error) {
      *text = errors[i].text;
      return SUCCESS;
    }
  *text = NULL;
  return INVALID_VALUE;
}
