/* floor_keeps_unseen.c: a cell that one live thread has not seen stays,
 * however many others have (racedet/floor.c).
 *
 * U starts first and then synchronises with nothing (it waits on a relaxed
 * flag).  W writes bytes 0-3 of a granule and ends; main joins it and then
 * starts S, so main and S have seen the write and U alone has not.  S
 * releases 4,000 times, which updates the floor (every 1,024 releases), and
 * then needs a third cell in the granule (a read of bytes 4-5, a write of
 * bytes 6-7): if the write were dead, S's write would take its plane-A
 * cell.  The floor must stay below the write's epoch because of U, so the
 * write moves to plane B instead, and U's read of bytes 0-3 races with it.
 * With a floor computed without U, the write is dead, its cell is reused,
 * and the race is lost (checked with a floor that took a clock's zero
 * entries for missing ones).
 *
 * EXPECT: race
 * EXPECT-CURRENT: u_read
 * EXPECT-PREVIOUS: w_write
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static _Alignas(8) volatile uint8_t granule[8];
static atomic_int crowded;

__attribute__((noinline)) static void w_write(void) { *(volatile uint32_t *)&granule[0] = 7; }

__attribute__((noinline)) static void s_crowd(void) {
  for (int i = 0; i < 4000; i++) { /* releases: floor updates */
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  }
  (void)*(volatile uint16_t *)&granule[4];
  *(volatile uint16_t *)&granule[6] = 9;
}

__attribute__((noinline)) static uint32_t u_read(void) {
  return *(volatile uint32_t *)&granule[0];
}

static void *w_body(void *p) {
  w_write();
  return p;
}
static void *s_body(void *p) {
  s_crowd();
  atomic_store_explicit(&crowded, 1, memory_order_relaxed);
  return p;
}
static void *u_body(void *p) {
  while (!atomic_load_explicit(&crowded, memory_order_relaxed)) sched_yield();
  return (void *)(uintptr_t)u_read();
}

int main(void) {
  pthread_t u, w, s;
  pthread_create(&u, 0, u_body, 0);
  pthread_create(&w, 0, w_body, 0);
  pthread_join(w, 0);
  pthread_create(&s, 0, s_body, 0);
  pthread_join(s, 0);
  pthread_join(u, 0);
  return 0;
}
