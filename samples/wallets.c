/* wallets.c: two batch jobs move money between wallets, each locking the
 * source wallet, then the destination.  The import job moves savings to
 * checking, the payout job checking to savings.  Today they run one after
 * the other and all is well; the day they overlap, each can hold one
 * wallet and wait for the other forever.  A lock-order inversion, reported
 * with where each job took its first lock and asked for its second (the
 * fix: lock the two wallets in one global order, as bank.c does).
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 1
 * EXPECT-CYCLE: 2
 * EXPECT-WANTED: import_job payout_job
 * EXPECT-HELD: import_job payout_job
 * EXPECT-MUTEX-CREATION: open_wallet
 * EXPECT-STDOUT: savings 900 checking 1100
 */
#include <pthread.h>
#include <stdio.h>

struct wallet {
  const char *name;
  pthread_mutex_t lock;
  long balance;
};

static struct wallet savings, checking;

__attribute__((noinline)) static void open_wallet(struct wallet *w, const char *name, long cents) {
  w->name = name;
  w->balance = cents;
  pthread_mutex_init(&w->lock, 0);
}

__attribute__((noinline)) static void move_funds(struct wallet *from, struct wallet *to,
                                                 long cents) {
  pthread_mutex_lock(&from->lock);
  pthread_mutex_lock(&to->lock); /* the order depends on the caller */
  from->balance -= cents;
  to->balance += cents;
  pthread_mutex_unlock(&to->lock);
  pthread_mutex_unlock(&from->lock);
}

static void *import_job(void *arg) {
  for (int i = 0; i < 3; i++) move_funds(&savings, &checking, 50);
  return arg;
}

static void *payout_job(void *arg) {
  move_funds(&checking, &savings, 50);
  return arg;
}

int main(void) {
  open_wallet(&savings, "savings", 1000);
  open_wallet(&checking, "checking", 1000);
  pthread_t job;
  pthread_create(&job, 0, import_job, 0);
  pthread_join(job, 0);
  pthread_create(&job, 0, payout_job, 0);
  pthread_join(job, 0);
  printf("savings %ld checking %ld\n", savings.balance, checking.balance);
  return 0;
}
