/* displaced_refresh.c: displaced_store.c with the bystander's store on the
 * slow path's shortcut, the refresh (rd_access_more, replace_in,
 * refresh_in: its site known from a private counter first, as the
 * writer's), whose exchange hands the access it displaced to refresh_rest.
 * Its window between the look and the exchange is short: with the access
 * dropped there (restore cut out of refresh_rest), 1 or 2 of the 64 rounds
 * went unreported in about half the runs; every one must be reported.
 *
 * EXPECT: race
 * EXPECT-CURRENT: reader
 * EXPECT-EVERY: 64 round
 */
#define BYSTANDER_REFRESH 1
#include "displaced_store.c"
