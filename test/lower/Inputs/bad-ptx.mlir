// A gpu.binary whose PTX ptxas rejects (input of ptxas.mlir; not a test).
module attributes {gpu.container_module} {
  gpu.binary @bad [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".version 7.8\0A.target sm_90\0A.address_size 64\0A.visible .entry bad()\0A{\0A\09this is not an instruction;\0A}\0A">]
}
