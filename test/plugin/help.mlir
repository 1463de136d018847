// Stock Debian mlir-opt loads the plugin and lists the Mirage passes.
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --help | FileCheck %s
// CHECK-DAG: --mirage-superopt {{.*}}Superoptimize tensor programs
// CHECK-DAG: --mirage-verify-ugraph
// CHECK-DAG: --mirage-check-equiv
