/* hooks_x86_64.S: entry points that need the caller's stack pointer.
 *
 * The compiler calls __tsan_func_entry(caller_pc) from the prologue of every
 * instrumented function.  These stubs add what C cannot see cheaply and
 * exactly: the return address of the hook call (a fixed pc inside the callee,
 * which identifies the function) and the caller's stack pointer, then jump to
 * the C implementation on the same stack.
 *
 *   __tsan_func_entry(cs)          -> dc_func_entry(cs, callee_pc, sp)
 *   __tsan_func_exit()             -> dc_func_exit(ra, sp)
 *   __cyg_profile_func_enter(f,cs) -> dc_cyg_func_entry(cs, f, sp)
 *   __cyg_profile_func_exit(f,cs)  -> dc_func_exit(ra, sp)
 *   __cxa_begin_catch(exc)         -> dc_cxa_begin_catch(exc, sp)
 */
        .text

#define STUB(name) \
        .globl name; .type name,@function; .p2align 4; name:

STUB(__tsan_func_entry)
        .cfi_startproc
        movq    (%rsp), %rsi
        leaq    8(%rsp), %rdx
        jmp     dc_func_entry
        .cfi_endproc
        .size __tsan_func_entry, .-__tsan_func_entry

STUB(__tsan_func_exit)
        .cfi_startproc
        movq    (%rsp), %rdi
        leaq    8(%rsp), %rsi
        jmp     dc_func_exit
        .cfi_endproc
        .size __tsan_func_exit, .-__tsan_func_exit

STUB(__cyg_profile_func_enter)
        .cfi_startproc
        movq    %rdi, %rax
        movq    %rsi, %rdi
        movq    %rax, %rsi
        leaq    8(%rsp), %rdx
        jmp     dc_cyg_func_entry
        .cfi_endproc
        .size __cyg_profile_func_enter, .-__cyg_profile_func_enter

STUB(__cyg_profile_func_exit)
        .cfi_startproc
        movq    (%rsp), %rdi
        leaq    8(%rsp), %rsi
        jmp     dc_func_exit
        .cfi_endproc
        .size __cyg_profile_func_exit, .-__cyg_profile_func_exit

STUB(__cxa_begin_catch)
        .cfi_startproc
        leaq    8(%rsp), %rsi
        jmp     dc_cxa_begin_catch
        .cfi_endproc
        .size __cxa_begin_catch, .-__cxa_begin_catch

        .section .note.GNU-stack,"",@progbits
