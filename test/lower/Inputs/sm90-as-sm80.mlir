// PTX targeting sm_90 in a binary whose NVVM target says sm_80 (input of
// ptxas.mlir; not a test).
module attributes {gpu.container_module} {
  gpu.binary @mislabeled [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "//\0A.version 7.8\0A.target sm_90\0A.address_size 64\0A\0A.visible .entry tiny()\0A{\0A\09ret;\0A}\0A">]
}
