/* dacce.h: public API of the DACCE calling-context encoder.
 *
 * A program built with -fsanitize=thread (or -finstrument-functions) and linked
 * with the dacce runtime keeps, per thread, its calling context as an encoded
 * value.  dacce_capture() copies it in O(1); dacce_decode() turns it back into
 * the full call path, including the creation chain of the thread.
 *
 * Contexts stay decodable after later re-encodings and after their thread has
 * exited: every dictionary and every ccStack node is immutable and kept.
 */
#ifndef DACCE_H
#define DACCE_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An encoded calling context.  24 bytes, trivially copyable. */
typedef struct dacce_ctx {
  uint64_t id;      /* path id within the current ccStack segment         */
  uint32_t node;    /* call-graph node (function) the context ends in       */
  uint32_t cc;      /* persistent ccStack node (0 = empty ccStack)          */
  uint32_t ts;      /* timestamp of the dictionary the id was encoded with  */
  uint32_t thread;  /* thread serial (0 = main thread), for the ancestry    */
} dacce_ctx;

/* One decoded frame.  Innermost first. */
typedef struct dacce_frame {
  uintptr_t function; /* a pc inside the called function (its node pc)      */
  uintptr_t callsite; /* return address in the caller (for a thread root: in the
                         code that started the thread, e.g. libc) */
  uint32_t thread;    /* thread whose stack holds this frame                */
  uint32_t flags;     /* DACCE_FRAME_* */
} dacce_frame;

#define DACCE_FRAME_THREAD_ROOT 1u  /* outermost frame of a thread            */
#define DACCE_FRAME_CREATE 2u       /* first frame of the creator's context   */

/* Capture the calling thread's current context.  O(1), lock-free. */
void dacce_capture(dacce_ctx *out);

/* Decode a context into at most max frames.  With ancestry != 0 the frames of
 * the creating thread's context (at its pthread_create call) follow, up to the
 * first thread.  Returns the number of frames written (the path is truncated
 * at max) or a negative value when the input is inconsistent:
 *   -1 unknown timestamp/node/ccStack node,  -2 no path matches the id. */
int dacce_decode(const dacce_ctx *ctx, dacce_frame *frames, int max, int ancestry);

/* Print a context, symbolised as far as the process can (function names via
 * the dynamic symbol tables and, when libdw is installed, file:line). */
void dacce_print(const dacce_ctx *ctx, FILE *out);

/* Append a context to the runtime's context log (option log_contexts=PATH),
 * tagged; dacce-decode reads the log together with the dictionary dump. */
void dacce_log(const dacce_ctx *ctx, const char *tag);

/* Encoder statistics, as printed by the stats option; heap_records: the
 * race detector's records of heap blocks made so far (each is reused once
 * its block is freed); sync_objects: its synchronisation objects made so
 * far (a mutex's, an atomic location's; each is reused once its memory is
 * freed). */
typedef struct dacce_stats {
  uint64_t nodes, edges, max_id, reencodings, encoded_edges, back_edges,
      overflow_edges, calls, cc_pushes, cc_nodes, verified, mismatches;
  double avg_cc_depth;
  uint64_t heap_records, sync_objects;
} dacce_stats;
void dacce_get_stats(dacce_stats *out);

/* Force a re-encoding now (tests and tools; the runtime decides by itself). */
void dacce_reencode(void);

#ifdef __cplusplus
}
#endif
#endif
