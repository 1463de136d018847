//===- driver.c - Opening the CUDA driver and a device --------------------===//
//
// Everything mirage-run knows of CUDA comes through the MgCuda table filled
// here from a dlopen'd libcuda.so.1: the build and the link never see CUDA,
// and a machine without the driver (or without a GPU) makes --time say so
// in one line rather than fail.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // dlopen, dlsym, dlerror
#include "driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mg_cuda_library_name(void) {
  const char *env = getenv("MIRAGE_CUDA_LIBRARY");
  return env && *env ? env : "libcuda.so.1";
}

/// One entry point: the symbol cuda.h calls (versioned where cuda.h maps
/// the name to a version), the plain name to try after it, and where the
/// pointer goes.
typedef struct Entry {
  const char *name, *fallback;
  size_t offset;
} Entry;

#define ENTRY(field, name, fallback) {name, fallback, offsetof(MgCuda, field)}
static const Entry entries[] = {
    ENTRY(init, "cuInit", NULL),
    ENTRY(driver_get_version, "cuDriverGetVersion", NULL),
    ENTRY(device_get_count, "cuDeviceGetCount", NULL),
    ENTRY(device_get, "cuDeviceGet", NULL),
    ENTRY(device_get_name, "cuDeviceGetName", NULL),
    ENTRY(device_get_attribute, "cuDeviceGetAttribute", NULL),
    ENTRY(primary_ctx_retain, "cuDevicePrimaryCtxRetain", NULL),
    ENTRY(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2",
          "cuDevicePrimaryCtxRelease"),
    ENTRY(ctx_set_current, "cuCtxSetCurrent", NULL),
    ENTRY(ctx_synchronize, "cuCtxSynchronize", NULL),
    ENTRY(module_load_data_ex, "cuModuleLoadDataEx", NULL),
    ENTRY(module_unload, "cuModuleUnload", NULL),
    ENTRY(module_get_function, "cuModuleGetFunction", NULL),
    ENTRY(func_get_attribute, "cuFuncGetAttribute", NULL),
    ENTRY(func_set_attribute, "cuFuncSetAttribute", NULL),
    ENTRY(mem_alloc, "cuMemAlloc_v2", "cuMemAlloc"),
    ENTRY(mem_free, "cuMemFree_v2", "cuMemFree"),
    ENTRY(memcpy_htod, "cuMemcpyHtoD_v2", "cuMemcpyHtoD"),
    ENTRY(memcpy_dtoh, "cuMemcpyDtoH_v2", "cuMemcpyDtoH"),
    ENTRY(memset_d8, "cuMemsetD8_v2", "cuMemsetD8"),
    ENTRY(launch_kernel, "cuLaunchKernel", NULL),
    ENTRY(event_create, "cuEventCreate", NULL),
    ENTRY(event_record, "cuEventRecord", NULL),
    ENTRY(event_synchronize, "cuEventSynchronize", NULL),
    // CUDA 12.8 added _v2 (cuda.h 13 maps the name to it); same signature.
    ENTRY(event_elapsed_time, "cuEventElapsedTime_v2", "cuEventElapsedTime"),
    ENTRY(event_destroy, "cuEventDestroy_v2", "cuEventDestroy"),
    ENTRY(get_error_name, "cuGetErrorName", NULL),
    ENTRY(get_error_string, "cuGetErrorString", NULL),
};
#undef ENTRY

bool mg_cuda_open(const char *path, MgCuda *cuda, char *why,
                  size_t why_size) {
  memset(cuda, 0, sizeof *cuda);
  dlerror();
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    if (!e || strstr(e, "No such file"))
      snprintf(why, why_size, "%s not found", path);
    else
      snprintf(why, why_size, "%s cannot be loaded: %s", path, e);
    return false;
  }
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
    void *p = dlsym(lib, entries[i].name);
    if (!p && entries[i].fallback)
      p = dlsym(lib, entries[i].fallback);
    if (!p) {
      snprintf(why, why_size, "%s has no %s", path, entries[i].name);
      dlclose(lib);
      return false;
    }
    // POSIX: a dlsym result converts to a function pointer of the same
    // size; memcpy avoids the object-to-function pointer cast ISO C lacks.
    memcpy((char *)cuda + entries[i].offset, &p, sizeof p);
  }
  cuda->library = lib;
  return true;
}

// The library stays loaded: the driver registers handlers that run at
// process exit, and unloading it under them is asking for trouble.
void mg_cuda_close(MgCuda *cuda) { memset(cuda, 0, sizeof *cuda); }

void mg_cuda_error_text(const MgCuda *cuda, MgCuResult r, char *out,
                        size_t size) {
  const char *name = NULL, *text = NULL;
  if (cuda->get_error_name(r, &name) != MG_CUDA_SUCCESS)
    name = NULL;
  if (cuda->get_error_string(r, &text) != MG_CUDA_SUCCESS)
    text = NULL;
  if (name && text)
    snprintf(out, size, "%s: %s", name, text);
  else
    snprintf(out, size, "CUDA error %d", r);
}

/// Peak DRAM bandwidth of the data sheet by marketing name, for drivers
/// that do not report the memory clock (bytes/s; 0 when unknown).
static double bandwidth_by_name(const char *name) {
  static const struct {
    const char *part;
    double bw;
  } sheet[] = {
      {"H200", 4.8e12},
      {"H100 NVL", 3.9e12},
      {"H100 PCIe", 2.0e12},
      {"H100", 3.35e12}, // SXM5 ("NVIDIA H100 80GB HBM3")
      {"A100 80GB PCIe", 1.935e12},
      {"A100-SXM4-80GB", 2.039e12},
      {"A100", 1.555e12}, // the 40 GB parts
  };
  for (size_t i = 0; i < sizeof sheet / sizeof sheet[0]; i++)
    if (strstr(name, sheet[i].part))
      return sheet[i].bw;
  return 0;
}

static int attribute(const MgCuda *cuda, MgCuDevice d, int which) {
  int v = 0;
  return cuda->device_get_attribute(&v, which, d) == MG_CUDA_SUCCESS ? v : 0;
}

MgCudaDeviceStatus mg_cuda_device_open(const MgCuda *cuda, int ordinal,
                                       MgCudaDevice *dev, char *why,
                                       size_t why_size) {
  memset(dev, 0, sizeof *dev);
  char e[300];
  MgCuResult r = cuda->init(0);
  if (r != MG_CUDA_SUCCESS) {
    mg_cuda_error_text(cuda, r, e, sizeof e);
    snprintf(why, why_size, "cuInit: %s", e);
    return r == MG_CUDA_ERROR_STUB_LIBRARY ? MG_CUDA_DEVICE_NO_DRIVER
                                           : MG_CUDA_DEVICE_NONE;
  }
  int count = 0;
  r = cuda->device_get_count(&count);
  if (r != MG_CUDA_SUCCESS || count <= ordinal) {
    if (r != MG_CUDA_SUCCESS)
      mg_cuda_error_text(cuda, r, e, sizeof e);
    else
      snprintf(e, sizeof e, "%d device(s)", count);
    snprintf(why, why_size, "cuDeviceGetCount: %s", e);
    return MG_CUDA_DEVICE_NONE;
  }
  if ((r = cuda->device_get(&dev->device, ordinal)) != MG_CUDA_SUCCESS) {
    mg_cuda_error_text(cuda, r, e, sizeof e);
    snprintf(why, why_size, "cuDeviceGet(%d): %s", ordinal, e);
    return MG_CUDA_DEVICE_ERROR;
  }
  if (cuda->device_get_name(dev->name, (int)sizeof dev->name, dev->device) !=
      MG_CUDA_SUCCESS)
    snprintf(dev->name, sizeof dev->name, "device %d", ordinal);
  dev->name[sizeof dev->name - 1] = 0;
  if (cuda->driver_get_version(&dev->driver_version) != MG_CUDA_SUCCESS)
    dev->driver_version = 0;
  MgCuDevice d = dev->device;
  dev->cc_major = attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  dev->cc_minor = attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  dev->sms = attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  dev->l2_bytes = attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  dev->smem_optin =
      attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  // Double data rate: two transfers per memory clock over the whole bus
  // (what CUDA's deviceQuery and bandwidthTest samples compute).
  double clock_khz = attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  double bus_bits = attribute(cuda, d, MG_CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  dev->dram_bw = 2.0 * clock_khz * 1e3 * bus_bits / 8.0;
  dev->bw_source = "memory clock x bus width";
  if (dev->dram_bw <= 0) {
    dev->dram_bw = bandwidth_by_name(dev->name);
    dev->bw_source = "data sheet";
  }
  if ((r = cuda->primary_ctx_retain(&dev->context, d)) != MG_CUDA_SUCCESS) {
    mg_cuda_error_text(cuda, r, e, sizeof e);
    snprintf(why, why_size, "cuDevicePrimaryCtxRetain: %s", e);
    dev->context = NULL;
    return MG_CUDA_DEVICE_ERROR;
  }
  if ((r = cuda->ctx_set_current(dev->context)) != MG_CUDA_SUCCESS) {
    mg_cuda_error_text(cuda, r, e, sizeof e);
    snprintf(why, why_size, "cuCtxSetCurrent: %s", e);
    cuda->primary_ctx_release(d);
    dev->context = NULL;
    return MG_CUDA_DEVICE_ERROR;
  }
  return MG_CUDA_DEVICE_OK;
}

void mg_cuda_device_close(const MgCuda *cuda, MgCudaDevice *dev) {
  if (!dev->context)
    return;
  cuda->ctx_set_current(NULL);
  cuda->primary_ctx_release(dev->device);
  dev->context = NULL;
}
