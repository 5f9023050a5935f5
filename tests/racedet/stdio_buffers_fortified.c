/* stdio_buffers_fortified.c: stdio_buffers.c built with
 * -D_FORTIFY_SOURCE=2, where gcc calls the checked variants of the printf
 * family: __snprintf_chk, __sprintf_chk, __fprintf_chk and __printf_chk
 * (fgets and fread stay plain: their sizes fit the buffers).  The same ten
 * races, found through those.  (clang 14 keeps the plain calls.)
 *
 * EXPECT: race
 * EXPECT-CFLAGS: -D_FORTIFY_SOURCE=2
 * EXPECT-COUNT: 10
 * EXPECT-EVERY: 10 use
 * EXPECT-STDOUT: stdio done
 */
#include "stdio_buffers.c"
