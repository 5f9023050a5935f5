/* the instrumented library of ../dlopen_race.c */
long lib_counter;

__attribute__((noinline)) void lib_touch(void) { lib_counter += 1; }

__attribute__((noinline)) void lib_entry(void (*callback)(void)) {
  callback();
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}
