/* tally.h: a counter under a mutex, in a shared library (tally.c). */
void tally_add(long n);
long tally_total(void);
