/* string_functions_fortified.c: string_functions.c built with
 * -D_FORTIFY_SOURCE=2, where the calls that write into a buffer of known
 * size are the checked variants: __strncat_chk, __stpcpy_chk,
 * __stpncpy_chk, __mempcpy_chk, __explicit_bzero_chk and __memset_chk
 * (gcc and clang alike).  The same 19 races, found through those (five of
 * them unseen without the first five's interceptors).
 *
 * EXPECT: race
 * EXPECT-CFLAGS: -D_FORTIFY_SOURCE=2
 * EXPECT-EVERY: 19 use
 * EXPECT-STDOUT: strings done
 */
#include "string_functions.c"
