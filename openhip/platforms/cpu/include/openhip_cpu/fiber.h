// openhip CPU platform: the user-space context switch of the fiber engine.
//
//   void openhip_cpu_switch(void** save_sp, void* to_sp);
//
// saves the callee-saved registers of the current context on its own stack, stores the stack
// pointer in *save_sp, loads to_sp and restores the callee-saved registers saved there, then
// returns into that context.  Caller-saved registers need no saving: to the compiler this is an
// ordinary function call.  What is NOT switched, deliberately: the MXCSR / x87 control word
// (FPCR on aarch64).  All fibers of a block run the same kernel on the same OS thread with the
// same floating-point environment; saving it would double the cost of a switch (≈11 ns vs ≈3 ns
// measured here).  A kernel that changes the rounding mode restores it before it synchronises
// (the intrinsics that change it do so around one operation).
//
// A new context is a stack prepared by openhip_cpu_fiber_stack(top, fn): switching to it
// "returns" into fn at a correct ABI alignment; fn must never return.
//
// The symbol is hidden: every kernel module carries its own copy (a few instructions).
#pragma once
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#define OPENHIP_CPU_HAVE_FIBERS 1
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl openhip_cpu_switch\n"
    ".hidden openhip_cpu_switch\n"
    ".type openhip_cpu_switch,@function\n"
    "openhip_cpu_switch:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"   // *save_sp = rsp
    "  movq %rsi, %rsp\n"     // rsp = to_sp
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"                  // into the target context (or a new fiber's entry function)
    ".size openhip_cpu_switch, .-openhip_cpu_switch\n");

namespace openhip {
namespace detail {
// Lays out a new context below `top`: six zeroed callee-saved slots, then the address of `fn`
// for the `ret`, then a null fake return address.  After the ret, rsp % 16 == 8, exactly as
// right after a `call`, which is what the ABI promises a function on entry.
inline void* fiber_stack(void* top, void (*fn)()) {
  uintptr_t t = reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15);
  void** sp = reinterpret_cast<void**>(t - 16);
  sp[0] = reinterpret_cast<void*>(fn);
  sp[1] = nullptr;
  sp -= 6;
  memset(sp, 0, 6 * sizeof(void*));
  return sp;
}
}  // namespace detail
}  // namespace openhip

#elif defined(__aarch64__)
#define OPENHIP_CPU_HAVE_FIBERS 1
// AAPCS64: x19-x28, x29 (fp), x30 (lr) and the low halves of v8-v15 are callee-saved.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl openhip_cpu_switch\n"
    ".hidden openhip_cpu_switch\n"
    ".type openhip_cpu_switch,%function\n"
    "openhip_cpu_switch:\n"
    "  sub sp, sp, #176\n"
    "  stp x19, x20, [sp, #0]\n"
    "  stp x21, x22, [sp, #16]\n"
    "  stp x23, x24, [sp, #32]\n"
    "  stp x25, x26, [sp, #48]\n"
    "  stp x27, x28, [sp, #64]\n"
    "  stp x29, x30, [sp, #80]\n"
    "  stp d8, d9, [sp, #96]\n"
    "  stp d10, d11, [sp, #112]\n"
    "  stp d12, d13, [sp, #128]\n"
    "  stp d14, d15, [sp, #144]\n"
    "  mov x9, sp\n"
    "  str x9, [x0]\n"
    "  mov sp, x1\n"
    "  ldp x19, x20, [sp, #0]\n"
    "  ldp x21, x22, [sp, #16]\n"
    "  ldp x23, x24, [sp, #32]\n"
    "  ldp x25, x26, [sp, #48]\n"
    "  ldp x27, x28, [sp, #64]\n"
    "  ldp x29, x30, [sp, #80]\n"
    "  ldp d8, d9, [sp, #96]\n"
    "  ldp d10, d11, [sp, #112]\n"
    "  ldp d12, d13, [sp, #128]\n"
    "  ldp d14, d15, [sp, #144]\n"
    "  add sp, sp, #176\n"
    "  ret\n"
    ".size openhip_cpu_switch, .-openhip_cpu_switch\n");

namespace openhip {
namespace detail {
// A 176-byte frame of zeroed callee-saved registers whose saved x30 (the link register) is fn;
// sp stays 16-byte aligned throughout.
inline void* fiber_stack(void* top, void (*fn)()) {
  uintptr_t t = reinterpret_cast<uintptr_t>(top) & ~uintptr_t(15);
  uint64_t* sp = reinterpret_cast<uint64_t*>(t - 176);
  memset(sp, 0, 176);
  sp[11] = reinterpret_cast<uint64_t>(fn);
  return sp;
}
}  // namespace detail
}  // namespace openhip

#else
#define OPENHIP_CPU_HAVE_FIBERS 0
#endif

#if OPENHIP_CPU_HAVE_FIBERS
extern "C" void openhip_cpu_switch(void** save_sp, void* to_sp)
    __attribute__((visibility("hidden")));
#endif
