//===- driver.h - The CUDA driver API, opened with dlopen at run time -----===//
//
// mirage-run --time runs the lowered kernels on a GPU through the CUDA
// driver API without depending on CUDA to build or to link: libcuda.so.1
// (or $MIRAGE_CUDA_LIBRARY) is opened with dlopen and the few entry points
// used are looked up by name. Their C signatures are declared here as the
// CUDA driver API documents them (cuda.h of CUDA 11 to 13); where cuda.h
// maps a name to a versioned symbol (`#define cuMemAlloc cuMemAlloc_v2`)
// the versioned one is looked up first, as a program compiled against
// cuda.h would call it, and the plain name second.
//
// Type correspondence (cuda.h, 64-bit hosts): CUresult, CUdevice_attribute,
// CUfunction_attribute and CUjit_option are C enums, passed as int; CUdevice
// is int; CUdeviceptr is unsigned long long; CUcontext, CUmodule,
// CUfunction, CUstream and CUevent are pointers to opaque structs. The
// legacy default stream (NULL) is used throughout.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_TOOLS_RUN_DRIVER_H
#define MIRAGE_TOOLS_RUN_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int MgCuResult;                    // CUresult
typedef int MgCuDevice;                    // CUdevice
typedef unsigned long long MgCuDevicePtr; // CUdeviceptr (CUdeviceptr_v2)
typedef struct MgCuContextOpaque *MgCuContext;
typedef struct MgCuModuleOpaque *MgCuModule;
typedef struct MgCuFunctionOpaque *MgCuFunction;
typedef struct MgCuStreamOpaque *MgCuStream;
typedef struct MgCuEventOpaque *MgCuEvent;

// Values from cuda.h.
#define MG_CUDA_SUCCESS 0
#define MG_CUDA_ERROR_INVALID_VALUE 1
#define MG_CUDA_ERROR_STUB_LIBRARY 34
#define MG_CUDA_ERROR_NO_DEVICE 100
// CUdevice_attribute
#define MG_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define MG_CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE 36 // kHz
#define MG_CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH 37 // bits
#define MG_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE 38 // bytes
#define MG_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define MG_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define MG_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
// CUfunction_attribute
#define MG_CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1 // static shared memory
#define MG_CU_FUNC_ATTRIBUTE_NUM_REGS 4
#define MG_CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
// CUjit_option
#define MG_CU_JIT_INFO_LOG_BUFFER 3
#define MG_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define MG_CU_JIT_ERROR_LOG_BUFFER 5
#define MG_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
// CUevent_flags
#define MG_CU_EVENT_DEFAULT 0
/// Dynamic shared memory a kernel may take without opting in
/// (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES) on every GPU.
#define MG_CU_DEFAULT_SMEM_LIMIT 49152

/// The entry points mirage-run calls. Every one is present once
/// mg_cuda_open succeeded.
typedef struct MgCuda {
  void *library; // dlopen handle
  MgCuResult (*init)(unsigned int flags);
  MgCuResult (*driver_get_version)(int *version);
  MgCuResult (*device_get_count)(int *count);
  MgCuResult (*device_get)(MgCuDevice *device, int ordinal);
  MgCuResult (*device_get_name)(char *name, int len, MgCuDevice device);
  MgCuResult (*device_get_attribute)(int *value, int attribute,
                                     MgCuDevice device);
  MgCuResult (*primary_ctx_retain)(MgCuContext *context, MgCuDevice device);
  MgCuResult (*primary_ctx_release)(MgCuDevice device);
  MgCuResult (*ctx_set_current)(MgCuContext context);
  MgCuResult (*ctx_synchronize)(void);
  MgCuResult (*module_load_data_ex)(MgCuModule *module, const void *image,
                                    unsigned int num_options, int *options,
                                    void **option_values);
  MgCuResult (*module_unload)(MgCuModule module);
  MgCuResult (*module_get_function)(MgCuFunction *function, MgCuModule module,
                                    const char *name);
  MgCuResult (*func_get_attribute)(int *value, int attribute,
                                   MgCuFunction function);
  MgCuResult (*func_set_attribute)(MgCuFunction function, int attribute,
                                   int value);
  MgCuResult (*mem_alloc)(MgCuDevicePtr *pointer, size_t bytes);
  MgCuResult (*mem_free)(MgCuDevicePtr pointer);
  MgCuResult (*memcpy_htod)(MgCuDevicePtr dst, const void *src, size_t bytes);
  MgCuResult (*memcpy_dtoh)(void *dst, MgCuDevicePtr src, size_t bytes);
  MgCuResult (*memset_d8)(MgCuDevicePtr dst, unsigned char value, size_t n);
  MgCuResult (*launch_kernel)(MgCuFunction function, unsigned int grid_x,
                              unsigned int grid_y, unsigned int grid_z,
                              unsigned int block_x, unsigned int block_y,
                              unsigned int block_z, unsigned int smem_bytes,
                              MgCuStream stream, void **params, void **extra);
  MgCuResult (*event_create)(MgCuEvent *event, unsigned int flags);
  MgCuResult (*event_record)(MgCuEvent event, MgCuStream stream);
  MgCuResult (*event_synchronize)(MgCuEvent event);
  MgCuResult (*event_elapsed_time)(float *ms, MgCuEvent start, MgCuEvent end);
  MgCuResult (*event_destroy)(MgCuEvent event);
  MgCuResult (*get_error_name)(MgCuResult error, const char **name);
  MgCuResult (*get_error_string)(MgCuResult error, const char **text);
} MgCuda;

/// The device timed on and what is known of it.
typedef struct MgCudaDevice {
  MgCuDevice device;
  MgCuContext context; // its primary context, current on this thread
  char name[256];
  int driver_version;  // 12040 is CUDA 12.4
  int cc_major, cc_minor;
  int sms;
  int64_t l2_bytes;
  int64_t smem_optin;  // shared memory per block after opting in
  double dram_bw;      // bytes/s
  const char *bw_source; // how dram_bw was found
} MgCudaDevice;

/// $MIRAGE_CUDA_LIBRARY, else "libcuda.so.1".
const char *mg_cuda_library_name(void);
/// dlopens `path` and looks up every entry point. False with the reason in
/// `why` (not loadable, or an entry point missing); nothing stays open.
bool mg_cuda_open(const char *path, MgCuda *cuda, char *why,
                  size_t why_size);
/// Forgets the table (the library stays loaded until the process exits).
void mg_cuda_close(MgCuda *cuda);
/// "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" (or the
/// number when the driver does not know it).
void mg_cuda_error_text(const MgCuda *cuda, MgCuResult r, char *out,
                        size_t size);

typedef enum MgCudaDeviceStatus {
  MG_CUDA_DEVICE_OK,
  MG_CUDA_DEVICE_NO_DRIVER, // the library is CUDA's stub, not a driver
  MG_CUDA_DEVICE_NONE,  // cuInit failed, or no device: nothing to time on
  MG_CUDA_DEVICE_ERROR, // a device is there but cannot be used
} MgCudaDeviceStatus;

/// Initializes the driver, picks device `ordinal`, reads its figures and
/// makes its primary context current. `why` says what failed otherwise.
MgCudaDeviceStatus mg_cuda_device_open(const MgCuda *cuda, int ordinal,
                                       MgCudaDevice *device, char *why,
                                       size_t why_size);
/// Releases the primary context.
void mg_cuda_device_close(const MgCuda *cuda, MgCudaDevice *device);

#endif // MIRAGE_TOOLS_RUN_DRIVER_H
