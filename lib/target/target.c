//===- target.c - The supported GPU targets: one table --------------------===//
//
// One row per target name, oldest first: the limits validation and the
// lowering apply, and the hardware figures both cost models use
// (docs/cost.md reproduces them with every source). None is measured by
// this project: no GPU has been available to it.
//  - Shared memory per block is the opt-in maximum (cudaFuncAttribute
//    MaxDynamicSharedMemorySize), which is what a fused kernel may use.
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
// lib/cost/kernel.c turns peaks into sustained rates, lib/cost/emitted.c
// uses peaks and latencies.
//
//===----------------------------------------------------------------------===//
#include "mirage/target.h"

#include <string.h>

#define MIB (1024.0 * 1024.0)
#define KIB 1024
#define GRID {2147483647, 65535, 65535}

typedef struct Row {
  MgTarget target;
  MgGpu gpu;
} Row;

// Figures every target shares (docs/cost.md: the same for all four).
#define SAME_FIGURES                                                           \
  .sfu_lanes = 16, .smem_bytes_clk = 128, .launch_s = 2e-6, .regs_sm = 65536, \
  .smem_reserved = KIB, .issue_clk = 4, .regs_thread = 64, .lat_fp = 4,        \
  .lat_sfu = 20, .lat_smem = 30, .lat_shfl = 30, .lat_bar = 20, .lat_l2 = 260

// Each row's target points at the row's own figures.
static const Row rows[] = {
    {{"sm_80", 166912, 1024, GRID, &rows[0].gpu, 80}, // 163 KiB per block
     {.target = "sm_80", .model = "A100 SXM4 80GB", .sms = 108, .sm = 80,
      .clock_hz = 1.41e9, .dram_bw = 2.039e12, .l2_bytes = 40 * MIB,
      .l2_bw = 5.0e12, .tensor_flops = 312e12, .simt_lanes = 64,
      .max_threads_sm = 2048, .max_blocks_sm = 32, .smem_sm = 164 * KIB,
      .lat_dram = 470, SAME_FIGURES}},
    {{"sm_86", 101376, 1024, GRID, &rows[1].gpu, 86}, // 99 KiB per block
     {.target = "sm_86", .model = "A40", .sms = 84, .sm = 86,
      .clock_hz = 1.74e9, .dram_bw = 696e9, .l2_bytes = 6 * MIB,
      .l2_bw = 2.0e12, .tensor_flops = 149.7e12, .simt_lanes = 128,
      .max_threads_sm = 1536, .max_blocks_sm = 16, .smem_sm = 100 * KIB,
      .lat_dram = 470, SAME_FIGURES}},
    {{"sm_89", 101376, 1024, GRID, &rows[2].gpu, 89}, // 99 KiB per block
     {.target = "sm_89", .model = "RTX 4090", .sms = 128, .sm = 89,
      .clock_hz = 2.52e9, .dram_bw = 1.008e12, .l2_bytes = 72 * MIB,
      .l2_bw = 5.0e12, .tensor_flops = 165.2e12, .simt_lanes = 128,
      .max_threads_sm = 1536, .max_blocks_sm = 24, .smem_sm = 100 * KIB,
      .lat_dram = 540, SAME_FIGURES}},
    {{"sm_90", 232448, 1024, GRID, &rows[3].gpu, 90}, // 227 KiB per block
     {.target = "sm_90", .model = "H100 SXM5", .sms = 132, .sm = 90,
      .clock_hz = 1.98e9, .dram_bw = 3.35e12, .l2_bytes = 50 * MIB,
      .l2_bw = 7.0e12, .tensor_flops = 989.4e12, .simt_lanes = 128,
      .max_threads_sm = 2048, .max_blocks_sm = 32, .smem_sm = 228 * KIB,
      .lat_dram = 480, SAME_FIGURES}},
};
#define NUM_TARGETS (sizeof rows / sizeof rows[0])
#define DEFAULT_TARGET 3 // sm_90

// The rows' names, for messages; keep in step with the table.
static const char names[] = "sm_80, sm_86, sm_89 or sm_90";

const MgTarget *mg_target_lookup(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < NUM_TARGETS; i++)
    if (strcmp(rows[i].target.name, name) == 0)
      return &rows[i].target;
  return NULL;
}

const MgTarget *mg_target_default(void) {
  return &rows[DEFAULT_TARGET].target;
}

size_t mg_target_count(void) { return NUM_TARGETS; }

const MgTarget *mg_target_at(size_t i) {
  return i < NUM_TARGETS ? &rows[i].target : NULL;
}

const char *mg_target_names(void) { return names; }

const MgTarget *mg_target_unlimited(void) {
  static const MgTarget unlimited = {
      "unlimited", INT64_MAX, INT32_MAX, {INT64_MAX, INT64_MAX, INT64_MAX},
      NULL, 90}; // lowered as for the default target
  return &unlimited;
}
