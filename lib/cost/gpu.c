//===- gpu.c - Hardware figures of the supported GPU targets --------------===//
//
// Peak figures from the vendors' data sheets and architecture whitepapers;
// L2 bandwidth is not published and comes from microbenchmark reports, so
// it is the least certain number here. One GPU per target name; the model
// in kernel.c turns peaks into sustained rates.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"

#include <string.h>

#define MIB (1024.0 * 1024.0)

static const MgGpu gpus[] = {
    // target, model, SMs, clock, DRAM B/s, L2 bytes, L2 B/s, tensor f16,
    // FP32 lanes/SM, SFU lanes/SM, smem B/clk/SM, launch s
    {"sm_80", "A100 SXM4 80GB", 108, 1.41e9, 2.039e12, 40 * MIB, 5.0e12,
     312e12, 64, 16, 128, 2e-6},
    {"sm_86", "A40", 84, 1.74e9, 696e9, 6 * MIB, 2.0e12, 149.7e12, 128, 16,
     128, 2e-6},
    {"sm_89", "RTX 4090", 128, 2.52e9, 1.008e12, 72 * MIB,
     5.0e12, 165.2e12, 128, 16, 128, 2e-6},
    {"sm_90", "H100 SXM5", 132, 1.98e9, 3.35e12, 50 * MIB, 7.0e12, 989.4e12,
     128, 16, 128, 2e-6},
};
#define DEFAULT_GPU 3 // sm_90, as mg_target_default()

const MgGpu *mg_cost_gpu(const MgTarget *target) {
  if (target && target->name)
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
      if (strcmp(gpus[i].target, target->name) == 0)
        return &gpus[i];
  return &gpus[DEFAULT_GPU];
}
