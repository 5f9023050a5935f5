/* stdio_buffers_fortified.c: stdio_buffers.c built with
 * -D_FORTIFY_SOURCE=2, where gcc calls the checked variants of the printf
 * family: __snprintf_chk, __sprintf_chk, __fprintf_chk and __printf_chk
 * (fgets and fread stay plain: their sizes fit the buffers).  The same
 * fifteen races, found through those.  (clang 14 keeps the plain calls.)
 *
 * EXPECT: race
 * EXPECT-CFLAGS: -D_FORTIFY_SOURCE=2
 * EXPECT-COUNT: 15
 * EXPECT-EVERY: 15 use
 * EXPECT-STDOUT: stdio done
 */
#include "stdio_buffers.c"
