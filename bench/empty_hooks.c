/* empty_hooks.c: -finstrument-functions callbacks that do nothing.
 *
 * bench/run.py links a kernel built with -finstrument-functions (and no
 * ThreadSanitizer) either with this object or with the dacce runtime
 * (build/lib/dacce/dacce_rt.o, whose __cyg_profile_func_enter/exit feed the
 * calling-context encoder).  The difference between the two is the cost of
 * the encoder over an empty callback; this object against a plain build is
 * the cost of the instrumentation itself.  Compile it without
 * -finstrument-functions (the attribute keeps it safe either way).
 */
#define NOINSTR __attribute__((no_instrument_function, noinline, used))

NOINSTR void __cyg_profile_func_enter(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
  __asm__ volatile("" ::: "memory");
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *call_site) {
  (void)fn;
  (void)call_site;
  __asm__ volatile("" ::: "memory");
}
