/* fake_reports.c: writes hand-made raw report lines into the channel
 * dacce-race gives the runtime (raw_reports=/dev/fd/N in DACCE_OPTIONS), to
 * test the launcher's reading and parsing.  Built with dacce-cc like any
 * program under test (the launcher insists), it races with nothing itself.
 *
 *   fake_reports malformed   every kind of broken line, each between two
 *                            valid reports (the launcher warns once per
 *                            broken line, renders the valid ones, never
 *                            crashes)
 *   fake_reports split       one valid report written in pieces, with pauses
 *   fake_reports fork N K    N forked children each write K valid reports
 *   fake_reports huge        one valid report of more than 64 KiB
 *   fake_reports stale       a forked child's valid report, whose answer
 *                            nobody reads (as a process that stopped
 *                            waiting leaves it), then a real race of this
 *                            process's own (real_write, real_read): its
 *                            wait for the answer must skip the child's
 *
 * Valid reports name fake_site() (current) and fake_other() (previous) by
 * their pcs with module /proc/self/exe, so they symbolise to those names.
 */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) void fake_site(void) { __asm__ volatile("nop; nop; nop; nop"); }
__attribute__((noinline)) void fake_other(void) { __asm__ volatile("nop; nop; nop; nop"); }

/* a real race for "stale": the read waits until the write is done (a
 * relaxed flag: no order for the detector, as in race_prog.c) */
int real_var;
static int real_done;
__attribute__((noinline)) static void *real_write(void *arg) {
  real_var = 1;
  __atomic_store_n(&real_done, 1, __ATOMIC_RELAXED);
  return arg;
}
__attribute__((noinline)) static void *real_read(void *arg) {
  while (!__atomic_load_n(&real_done, __ATOMIC_RELAXED)) usleep(1000);
  return (void *)(intptr_t)real_var;
}

static uintptr_t bias;
/* the module reports name: the launcher's program is /proc/self/exe to it */
static const char *module = "/proc/self/exe";
static int first_phdr(struct dl_phdr_info *info, size_t size, void *arg) {
  bias = info->dlpi_addr;
  return 1;
}

static int out = -1;
static void put(const char *s, size_t n) {
  if (write(out, s, n) != (ssize_t)n) {
    perror("fake_reports: write");
    exit(3);
  }
}
static void puts_line(const char *s) { put(s, strlen(s)); }

static char *valid(int nframes) {
  size_t cap = 4096 + (size_t)nframes * 128;
  char *b = malloc(cap);
  size_t n = 0;
  uintptr_t pc1 = (uintptr_t)fake_site + 1, pc2 = (uintptr_t)fake_other + 1;
  n += (size_t)snprintf(b + n, cap - n,
                        "{\"kind\":\"data-race\",\"pid\":%d,\"mutexes_held_by_current\":0,"
                        "\"current\":{\"thread\":1,\"is_write\":true,\"is_atomic\":false,"
                        "\"is_free\":false,\"size\":4,\"address\":\"0x1000\",\"decode_error\":0,"
                        "\"frames\":[",
                        (int)getpid());
  for (int i = 0; i < nframes; i++)
    n += (size_t)snprintf(b + n, cap - n, "%s{\"pc\":\"%#lx\",\"module\":\"%s\",\"bias\":\"%#lx\"}",
                          i ? "," : "", (unsigned long)pc1, module, (unsigned long)bias);
  n += (size_t)snprintf(b + n, cap - n,
                        "]},\"previous\":{\"thread\":2,\"is_write\":false,\"is_atomic\":false,"
                        "\"is_free\":false,\"size\":4,\"address\":\"0x1000\",\"decode_error\":0,"
                        "\"frames\":[{\"pc\":\"%#lx\",\"module\":\"%s\",\"bias\":\"%#lx\"}]},"
                        "\"location\":{\"kind\":\"unknown\",\"name\":\"\",\"address\":\"0\",\"size\":0,"
                        "\"access_address\":\"0x1000\",\"data\":{\"pc\":\"0\",\"module\":\"\",\"bias\":\"0\"}},"
                        "\"mutexes\":[],\"threads\":[{\"id\":1,\"parent\":0,\"creation_frames\":[]},"
                        "{\"id\":0,\"parent\":null,\"creation_frames\":[]},"
                        "{\"id\":2,\"parent\":0,\"creation_frames\":[]}]}\n",
                        (unsigned long)pc2, module, (unsigned long)bias);
  return b;
}

static const char *malformed[] = {
    "not json at all\n",
    "{\"kind\":\"data-race\",\"pid\":1\n",                       /* truncated */
    "[1,2,3]\n",                                                /* not an object */
    "{\"kind\":\"deadlock\",\"current\":{},\"previous\":{}}\n",  /* unknown kind */
    "{\"kind\":\"data-race\"}\n",                               /* no accesses */
    "{\"kind\":\"data-race\",\"current\":{\"thread\":\"one\",\"frames\":[]},"
    "\"previous\":{\"thread\":1,\"frames\":[]}}\n",             /* wrong type */
    "{\"kind\":\"data-race\",\"current\":{\"thread\":1,\"frames\":[{\"pc\":\"zz\"}]},"
    "\"previous\":{\"thread\":2,\"frames\":[]}}\n",             /* bad hex */
    "{\"kind\":\"data-race\",\"current\":{\"thread\":1,\"frames\":[7]},"
    "\"previous\":{\"thread\":2,\"frames\":[]}}\n",             /* frame not an object */
    "{\"kind\":\"data-race\",\"current\":{\"thread\":-1,\"frames\":[]},"
    "\"previous\":{\"thread\":2,\"frames\":[]}}\n",             /* negative thread */
    "{\"kind\":\"data\\x-race\"}\n",                            /* bad escape */
    "{\"kind\":\"data-race\",\"current\":{\"thread\":1,\"frames\":[]},"
    "\"previous\":{\"thread\":2,\"frames\":[]},\"location\":{\"kind\":\"moon\"}}\n",
    "{\"kind\":\"data-race\",\"current\":{\"thread\":1,\"frames\":[]},"
    "\"previous\":{\"thread\":2,\"frames\":[]},\"threads\":[{\"parent\":0}]}\n", /* no id */
    "{\"kind\":\"data-race\"} trailing\n",
    "{\"kind\":\"data-race\",\"pid\":1e999999999999}\n",
    "{\"a\":\"\\ud800\",\"kind\":tru}\n",
    "{\"kind\":\"lock-order-inversion\"}\n",                    /* no cycle */
    "{\"kind\":\"lock-order-inversion\",\"cycle\":[{\"from\":\"0x1\",\"to\":\"0x2\","
    "\"thread\":1,\"frames\":[],\"held_frames\":[]}]}\n",      /* one edge */
    "{\"kind\":\"lock-order-inversion\",\"cycle\":[{\"from\":\"x\",\"to\":\"0x2\","
    "\"thread\":1,\"frames\":[],\"held_frames\":[]},{\"from\":\"0x2\",\"to\":\"0x1\","
    "\"thread\":2,\"frames\":[],\"held_frames\":[]}]}\n",      /* bad address */
    "{\"kind\":\"lock-order-inversion\",\"cycle\":[{\"from\":\"0x1\",\"to\":\"0x2\","
    "\"thread\":1,\"frames\":[]},{\"from\":\"0x2\",\"to\":\"0x1\",\"thread\":2,"
    "\"frames\":[],\"held_frames\":[]}]}\n",                     /* no held_frames */
    "{\"kind\":\"mutex-misuse\",\"misuse\":\"double-lock\",\"thread\":1,"
    "\"frames\":[]}\n",                                           /* no mutex */
    "{\"kind\":\"mutex-misuse\",\"misuse\":\"juggling\",\"mutex\":\"0x1\","
    "\"thread\":1,\"frames\":[]}\n",                             /* unknown misuse */
    "{\"kind\":\"mutex-misuse\",\"misuse\":\"unlock-not-held\",\"mutex\":\"0x1\","
    "\"thread\":1,\"holder\":-2,\"frames\":[]}\n",               /* negative holder */
    "{\"kind\":\"signal-unsafe-call\",\"signal\":10,\"thread\":1,"
    "\"frames\":[]}\n",                                           /* no function */
    "{\"kind\":\"signal-errno\",\"signal\":10,\"thread\":1,\"errno_before\":0,"
    "\"frames\":[]}\n",                                           /* no errno_after */
    "{\"kind\":\"signal-errno\",\"signal\":-3,\"thread\":1,\"errno_before\":0,"
    "\"errno_after\":9,\"frames\":[]}\n",                        /* negative signal */
};

int main(int argc, char **argv) {
  const char *opts = getenv("DACCE_OPTIONS");
  const char *p = opts ? strstr(opts, "raw_reports=/dev/fd/") : NULL;
  if (!p) {
    fprintf(stderr, "fake_reports: no raw_reports=/dev/fd/N in DACCE_OPTIONS\n");
    return 3;
  }
  out = atoi(p + strlen("raw_reports=/dev/fd/"));
  dl_iterate_phdr(first_phdr, NULL);
  const char *mode = argc > 1 ? argv[1] : "malformed";
  char *v = valid(1);
  if (!strcmp(mode, "malformed")) {
    puts_line(v);
    for (size_t i = 0; i < sizeof malformed / sizeof *malformed; i++) {
      puts_line(malformed[i]);
      puts_line("\n"); /* empty lines are skipped silently */
    }
    /* deep nesting */
    char deep[4096];
    size_t n = 0;
    for (int i = 0; i < 1000; i++) deep[n++] = '[';
    deep[n++] = '\n';
    put(deep, n);
    /* binary garbage with NULs and control bytes */
    static const char junk[] = {'{', 0, 1, 2, '"', (char)0xff, '}', '\n'};
    put(junk, sizeof junk);
    puts_line(v);
    printf("malformed lines: %zu\n", sizeof malformed / sizeof *malformed + 2);
  } else if (!strcmp(mode, "split")) {
    size_t n = strlen(v), step = n / 5 + 1;
    for (size_t i = 0; i < n; i += step) {
      put(v + i, i + step < n ? step : n - i);
      usleep(20 * 1000);
    }
  } else if (!strcmp(mode, "fork")) {
    int nproc = argc > 2 ? atoi(argv[2]) : 4, k = argc > 3 ? atoi(argv[3]) : 10;
    for (int c = 0; c < nproc; c++) {
      pid_t pid = fork();
      if (pid == 0) {
        char *mine = valid(3);
        for (int i = 0; i < k; i++) puts_line(mine);
        _exit(0);
      }
    }
    while (wait(NULL) > 0) {
    }
  } else if (!strcmp(mode, "stale")) {
    /* run by a script under --trace-children: the script is the program */
    static char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 3;
    module = self;
    pid_t pid = fork();
    if (pid == 0) {
      puts_line(valid(1));
      _exit(0);
    }
    waitpid(pid, NULL, 0);
    pthread_t w, r;
    pthread_create(&w, NULL, real_write, NULL);
    pthread_create(&r, NULL, real_read, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    printf("stale done\n");
  } else if (!strcmp(mode, "huge")) {
    char *h = valid(1200);
    if (strlen(h) <= 65536) return 4;
    puts_line(h);
  } else {
    return 100;
  }
  return 0;
}
