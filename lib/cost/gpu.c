//===- gpu.c - Hardware figures of the supported GPU targets --------------===//
//
// The one table of figures both cost models use (docs/cost.md reproduces
// it with every source). None is measured by this project: no GPU has
// been available to it.
//  - Peaks (SMs, clock, DRAM and tensor rates, FP32 and SFU lanes, shared
//    memory bytes per clock) from NVIDIA's data sheets and architecture
//    whitepapers.
//  - L2 bandwidth: not published; rounded microbenchmark reports, the
//    least certain peak here.
//  - Per-SM limits (resident threads and blocks, registers, shared memory,
//    the 1 KiB the driver reserves per block, 4 warp schedulers issuing one
//    instruction per clock each): the CUDA C++ Programming Guide's table of
//    compute capabilities and its arithmetic-throughput table.
//  - Latencies (SM cycles): dependent FP32 operations 4 cycles (Jia et al.,
//    "Dissecting the NVIDIA Volta/Turing GPU architecture via
//    microbenchmarking", 2018/2019, unchanged since); shared memory about
//    30, L2 hits about 260 and DRAM about 470-480 cycles (Luo et al.,
//    "Benchmarking and dissecting the Nvidia Hopper GPU architecture",
//    2024, A100 and H800; pointer chases, so unloaded latencies: under load
//    they grow, which makes the emitted model's memory parallelism
//    optimistic). The special-function unit (20), shuffle (30) and barrier
//    (20) latencies are assumed, not taken from a measurement; so is the
//    64 registers per thread (ptxas reports 24-64 for the paper
//    benchmarks' kernels, bench/kernels.sh), and so are the sm_86/sm_89
//    latencies, the A100's (the RTX 4090's DRAM figure is Luo et al.'s).
// One GPU per target name; kernel.c turns peaks into sustained rates,
// emitted.c uses peaks and latencies.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"

#include <string.h>

#define MIB (1024.0 * 1024.0)
#define KIB 1024

static const MgGpu gpus[] = {
    {.target = "sm_80", .model = "A100 SXM4 80GB", .sms = 108,
     .clock_hz = 1.41e9, .dram_bw = 2.039e12, .l2_bytes = 40 * MIB,
     .l2_bw = 5.0e12, .tensor_flops = 312e12, .simt_lanes = 64,
     .sfu_lanes = 16, .smem_bytes_clk = 128, .launch_s = 2e-6, .sm = 80,
     .max_threads_sm = 2048, .max_blocks_sm = 32, .regs_sm = 65536,
     .smem_sm = 164 * KIB, .smem_reserved = KIB, .issue_clk = 4,
     .regs_thread = 64, .lat_fp = 4, .lat_sfu = 20, .lat_smem = 30,
     .lat_shfl = 30, .lat_bar = 20, .lat_l2 = 260, .lat_dram = 470},
    {.target = "sm_86", .model = "A40", .sms = 84, .clock_hz = 1.74e9,
     .dram_bw = 696e9, .l2_bytes = 6 * MIB, .l2_bw = 2.0e12,
     .tensor_flops = 149.7e12, .simt_lanes = 128, .sfu_lanes = 16,
     .smem_bytes_clk = 128, .launch_s = 2e-6, .sm = 86,
     .max_threads_sm = 1536, .max_blocks_sm = 16, .regs_sm = 65536,
     .smem_sm = 100 * KIB, .smem_reserved = KIB, .issue_clk = 4,
     .regs_thread = 64, .lat_fp = 4, .lat_sfu = 20, .lat_smem = 30,
     .lat_shfl = 30, .lat_bar = 20, .lat_l2 = 260, .lat_dram = 470},
    {.target = "sm_89", .model = "RTX 4090", .sms = 128, .clock_hz = 2.52e9,
     .dram_bw = 1.008e12, .l2_bytes = 72 * MIB, .l2_bw = 5.0e12,
     .tensor_flops = 165.2e12, .simt_lanes = 128, .sfu_lanes = 16,
     .smem_bytes_clk = 128, .launch_s = 2e-6, .sm = 89,
     .max_threads_sm = 1536, .max_blocks_sm = 24, .regs_sm = 65536,
     .smem_sm = 100 * KIB, .smem_reserved = KIB, .issue_clk = 4,
     .regs_thread = 64, .lat_fp = 4, .lat_sfu = 20, .lat_smem = 30,
     .lat_shfl = 30, .lat_bar = 20, .lat_l2 = 260, .lat_dram = 540},
    {.target = "sm_90", .model = "H100 SXM5", .sms = 132, .clock_hz = 1.98e9,
     .dram_bw = 3.35e12, .l2_bytes = 50 * MIB, .l2_bw = 7.0e12,
     .tensor_flops = 989.4e12, .simt_lanes = 128, .sfu_lanes = 16,
     .smem_bytes_clk = 128, .launch_s = 2e-6, .sm = 90,
     .max_threads_sm = 2048, .max_blocks_sm = 32, .regs_sm = 65536,
     .smem_sm = 228 * KIB, .smem_reserved = KIB, .issue_clk = 4,
     .regs_thread = 64, .lat_fp = 4, .lat_sfu = 20, .lat_smem = 30,
     .lat_shfl = 30, .lat_bar = 20, .lat_l2 = 260, .lat_dram = 480},
};
#define DEFAULT_GPU 3 // sm_90, as mg_target_default()

const MgGpu *mg_cost_gpu(const MgTarget *target) {
  if (target && target->name)
    for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
      if (strcmp(gpus[i].target, target->name) == 0)
        return &gpus[i];
  return &gpus[DEFAULT_GPU];
}
