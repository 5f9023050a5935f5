/* bank.c: tellers move money between accounts under per-account locks; the
 * auditor sums the balances but forgot to take the locks.
 *
 * EXPECT: race
 * EXPECT-CURRENT: audit_total auditor
 * EXPECT-PREVIOUS: apply_transfer transfer teller
 * EXPECT-LOCATION: global accounts
 */
#include <pthread.h>
#include <stdio.h>

#define ACCOUNTS 8
#define TELLERS 3

struct account {
  pthread_mutex_t lock;
  long balance;
};
struct account accounts[ACCOUNTS];

__attribute__((noinline)) static void apply_transfer(struct account *from, struct account *to,
                                                     long amount) {
  from->balance -= amount;
  to->balance += amount;
}

__attribute__((noinline)) static void transfer(int from, int to, long amount) {
  struct account *a = &accounts[from < to ? from : to], *b = &accounts[from < to ? to : from];
  pthread_mutex_lock(&a->lock);
  pthread_mutex_lock(&b->lock);
  apply_transfer(&accounts[from], &accounts[to], amount);
  pthread_mutex_unlock(&b->lock);
  pthread_mutex_unlock(&a->lock);
}

static void *teller(void *arg) {
  unsigned seed = (unsigned)(long)arg;
  for (int i = 0; i < 2000; i++) {
    seed = seed * 1103515245u + 12345u;
    int from = (int)(seed >> 8) % ACCOUNTS, to = (int)(seed >> 16) % ACCOUNTS;
    if (from != to) transfer(from, to, (long)(seed % 100));
  }
  return 0;
}

/* BUG: reads every balance without holding the account locks */
__attribute__((noinline)) static long audit_total(void) {
  long total = 0;
  for (int i = 0; i < ACCOUNTS; i++) total += accounts[i].balance;
  return total;
}

static void *auditor(void *arg) {
  long seen = 0;
  for (int i = 0; i < 200; i++) seen += audit_total() != 0;
  return (void *)seen;
}

int main(void) {
  for (int i = 0; i < ACCOUNTS; i++) {
    pthread_mutex_init(&accounts[i].lock, 0);
    accounts[i].balance = 1000;
  }
  pthread_t t[TELLERS], a;
  for (long i = 0; i < TELLERS; i++) pthread_create(&t[i], 0, teller, (void *)(i + 1));
  pthread_create(&a, 0, auditor, 0);
  for (int i = 0; i < TELLERS; i++) pthread_join(t[i], 0);
  pthread_join(a, 0);
  printf("total %ld\n", audit_total());
  return 0;
}
