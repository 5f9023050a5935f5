/* hooks_offsets.h: the layout of dc_thread and dc_frame (internal.h) as the
 * assembly hooks (hooks_x86_64.S) see it; internal.h asserts each one. */
#ifndef DACCE_HOOKS_OFFSETS_H
#define DACCE_HOOKS_OFFSETS_H
#define DC_T_TOP 0x20    /* dc_thread.top */
#define DC_T_CTX 0x28    /* dc_thread.ctx_handle */
#define DC_T_SLOW 0x30   /* dc_thread.in_runtime and .pending: the slow word */
#define DC_T_LIMIT 0x38  /* dc_thread.limit */
#define DC_T_CALLS 0x40  /* dc_thread.calls */
#define DC_F_SIZE 0x20   /* sizeof(dc_frame) */
#define DC_F_CS 0x00     /* dc_frame.cs (raw) */
#define DC_F_CALLEE 0x08 /* dc_frame.callee_pc (raw) */
#define DC_F_SP 0x10     /* dc_frame.sp */
#define DC_F_EDGE 0x18   /* dc_frame.edge */
#define DC_EDGE_RAW_ASM 0xffffffff
#endif
