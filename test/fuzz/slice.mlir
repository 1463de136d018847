// The fuzz slice of CI (docs/testing.md, issue 14): a fixed-seed run of
// mirage-fuzz over the lit inputs and examples, in the sanitized build
// only (the plain build prints no stack, so it could blame nothing). It
// fails on any crash, hang or memory event that is not the upstream
// parser's: in our code, in upstream code running on IR our passes made,
// or without a stack. Crashes inside MLIR 22's parser are printed and do
// not fail it. On a failure, the saved inputs are in %t (one per signature,
// with the mirage-opt command that reproduces it).
// REQUIRES: asan
// RUN: rm -rf %t
// RUN: mirage-fuzz --seed=1 --inputs=500 --jobs=2 --save=%t %mirage_src/test %mirage_src/examples | FileCheck %s
// CHECK: pipeline {{ *}}inputs {{ *}}parsed {{ *}}clean {{ *}}diagnostic {{ *}}crash {{ *}}hang {{ *}}memory
// CHECK: total {{ *}}500
// CHECK: distinct crash/hang/memory signatures: ours 0,
// CHECK-SAME: upstream on our output 0, no stack 0
// CHECK: crashes, hangs and memory events in our code: 0 inputs
