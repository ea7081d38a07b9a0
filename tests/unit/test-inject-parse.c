/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure parts of the injector: /proc parsers, the refusal decision and
 * mempolicy specs, as tables. */
#include <errno.h>

#include <glib.h>

#include "inject-proc.h"

#define STATUS(state, tracer, seccomp, kthread)                                       \
        "Name:\tsleep\nUmask:\t0022\nState:\t" state "\nTgid:\t4242\nNgid:\t0\n"      \
        "Pid:\t4242\nPPid:\t4000\nTracerPid:\t" tracer "\nUid:\t0\t0\t0\t0\n"       \
        kthread "Seccomp:\t" seccomp "\nSeccomp_filters:\t0\n"

static void test_status_parse(void) {
        static const struct {
                const char *text;
                int r;
                char state;
                int tracer, seccomp, kthread;
        } cases[] = {
                { STATUS("S (sleeping)", "0", "0", "Kthread:\t0\n"), 0, 'S', 0, 0, 0 },
                { STATUS("t (tracing stop)", "17", "0", ""), 0, 't', 17, 0, -1 },
                { STATUS("Z (zombie)", "0", "2", "Kthread:\t0\n"), 0, 'Z', 0, 2, 0 },
                { STATUS("I (idle)", "0", "0", "Kthread:\t1\n"), 0, 'I', 0, 0, 1 },
                { "Name:\tx\nTgid:\t1\nPid:\t1\n", -EINVAL, 0, 0, 0, 0 },           /* no State */
                { "State:\tR (running)\nTgid:\t1\nPid:\tx\n", -EINVAL, 0, 0, 0, 0 }, /* bad Pid */
                { "", -EINVAL, 0, 0, 0, 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                ProcStatus st = { .state = '?' };
                int r = proc_status_parse(cases[i].text, &st);

                if (r != cases[i].r)
                        g_error("status case %zu: want %d, got %d", i, cases[i].r, r);
                if (r < 0) {
                        g_assert_cmpint(st.state, ==, '?');  /* untouched on failure */
                        continue;
                }
                g_assert_cmpint(st.state, ==, cases[i].state);
                g_assert_cmpint(st.tracer_pid, ==, cases[i].tracer);
                g_assert_cmpint(st.seccomp, ==, cases[i].seccomp);
                g_assert_cmpint(st.kthread, ==, cases[i].kthread);
                g_assert_cmpint(st.pid, ==, 4242);
                g_assert_cmpint(st.ppid, ==, 4000);
        }
}

static void test_maps_parse(void) {
        static const struct {
                const char *line;
                int r;
                guint64 start, end;
                const char *perms, *path;
        } cases[] = {
                { "7ffd1b5f2000-7ffd1b5f4000 r-xp 00000000 00:00 0                          [vdso]\n", 0,
                  0x7ffd1b5f2000, 0x7ffd1b5f4000, "r-xp", "[vdso]\n" },
                { "55d0c0a00000-55d0c0a21000 r--p 00000000 fe:01 1234567 /usr/bin/sleep", 0,
                  0x55d0c0a00000, 0x55d0c0a21000, "r--p", "/usr/bin/sleep" },
                { "7f00-8f00 rw-p 00000000 00:00 0", 0, 0x7f00, 0x8f00, "rw-p", "" },
                { "7f00-8f00 rw-p 00000000 00:00 0 /a file with spaces (deleted)", 0, 0x7f00, 0x8f00, "rw-p",
                  "/a file with spaces (deleted)" },
                { "8f00-7f00 rw-p 00000000 00:00 0", -EINVAL, 0, 0, NULL, NULL },
                { "garbage", -EINVAL, 0, 0, NULL, NULL },
                { "7f00-8f00 rw-p", -EINVAL, 0, 0, NULL, NULL },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                MapsEntry e;
                int r = proc_maps_parse_line(cases[i].line, &e);

                if (r != cases[i].r)
                        g_error("maps case %zu (%s): want %d, got %d", i, cases[i].line, cases[i].r, r);
                if (r < 0)
                        continue;
                g_assert_cmpuint(e.start, ==, cases[i].start);
                g_assert_cmpuint(e.end, ==, cases[i].end);
                g_assert_cmpstr(e.perms, ==, cases[i].perms);
                g_assert_cmpstr(e.path, ==, cases[i].path);
        }
}

static void test_numa_maps_policy(void) {
        static const struct {
                const char *line;
                int r;
                const char *policy;
        } cases[] = {
                { "55d0c0a00000 default file=/usr/bin/sleep mapped=8 N0=8 kernelpagesize_kB=4\n", 0, "default" },
                { "7f0000000000 prefer:1 anon=1 dirty=1 N1=1 kernelpagesize_kB=4", 0, "prefer:1" },
                { "7f0000000000 interleave:0-1 anon=1", 0, "interleave:0-1" },
                { "7f0000000000 bind:1\n", 0, "bind:1" },
                { "7f0000000000 prefer (many):0-1 anon=2", 0, "prefer (many):0-1" },
                { "7f0000000000 weighted interleave:0-1 anon=2", 0, "weighted interleave:0-1" },
                { "7f0000000000 interleave=static:0-1 anon=1", 0, "interleave=static:0-1" },
                { " default", -EINVAL, NULL },
                { "7f0000000000", -EINVAL, NULL },
                { "7f0000000000 ", -EINVAL, NULL },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                char buf[64] = "";
                int r = numa_maps_policy(cases[i].line, buf, sizeof(buf));

                if (r != cases[i].r)
                        g_error("numa_maps case %zu (%s): want %d, got %d", i, cases[i].line, cases[i].r, r);
                if (r == 0)
                        g_assert_cmpstr(buf, ==, cases[i].policy);
        }

        char tiny[4];
        g_assert_cmpint(numa_maps_policy("7f00 interleave:0-1", tiny, sizeof(tiny)), ==, -ENOBUFS);
}

static void test_vmflags(void) {
        static const struct {
                const char *line, *flag;
                int r;
        } cases[] = {
                { "VmFlags: rd wr mr mw me ac sd mg\n", "mg", 1 },
                { "VmFlags: rd mg wr\n", "mg", 1 },
                { "VmFlags: rd wr mr mw me ac sd\n", "mg", 0 },
                { "VmFlags: rd wr mr mw me ac sd mgx\n", "mg", 0 },
                { "VmFlags:\n", "mg", 0 },
                { "Rss:                 4 kB mg\n", "mg", -EINVAL },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                int r = smaps_vmflags_has(cases[i].line, cases[i].flag);
                if (r != cases[i].r)
                        g_error("VmFlags case %zu (%s): want %d, got %d", i, cases[i].line, cases[i].r, r);
        }
}

static void test_refusals(void) {
        static const struct {
                const char *name;
                ProcStatus st;
                bool leader;
                InjectRefusal want;
        } cases[] = {
#define ST(state, tgid, pid, ppid, tracer, seccomp, kthread) \
        { state, tgid, pid, ppid, tracer, seccomp, kthread }
                { "plain", ST('S', 500, 500, 1, 0, 0, 0), true, INJECT_REFUSAL_NONE },
                { "running", ST('R', 500, 500, 1, 0, 0, -1), true, INJECT_REFUSAL_NONE },
                { "disk sleep", ST('D', 500, 500, 1, 0, 0, 0), true, INJECT_REFUSAL_NONE },
                { "kthread field", ST('I', 77, 77, 2, 0, 0, 1), true, INJECT_REFUSAL_KERNEL_THREAD },
                { "kthreadd child, old kernel", ST('I', 77, 77, 2, 0, 0, -1), true, INJECT_REFUSAL_KERNEL_THREAD },
                { "kthreadd, old kernel", ST('S', 2, 2, 0, 0, 0, -1), true, INJECT_REFUSAL_KERNEL_THREAD },
                { "child of PID 2 in a PID namespace", ST('S', 9, 9, 2, 0, 0, 0), true, INJECT_REFUSAL_NONE },
                { "PID 1", ST('S', 1, 1, 0, 0, 0, 0), true, INJECT_REFUSAL_INIT },
                { "ourselves", ST('S', 1000, 1000, 1, 0, 0, 0), true, INJECT_REFUSAL_SELF },
                { "zombie", ST('Z', 500, 500, 1, 0, 0, 0), true, INJECT_REFUSAL_EXITING },
                { "dead", ST('X', 500, 500, 1, 0, 0, 0), true, INJECT_REFUSAL_EXITING },
                { "traced", ST('S', 500, 500, 1, 321, 0, 0), true, INJECT_REFUSAL_TRACED },
                { "tracing stop", ST('t', 500, 500, 1, 321, 0, 0), true, INJECT_REFUSAL_TRACED },
                { "stopped", ST('T', 500, 500, 1, 0, 0, 0), true, INJECT_REFUSAL_STOPPED },
                { "seccomp filter", ST('S', 500, 500, 1, 0, 2, 0), true, INJECT_REFUSAL_SECCOMP },
                { "seccomp strict", ST('S', 500, 500, 1, 0, 1, 0), true, INJECT_REFUSAL_SECCOMP },
                { "no Seccomp line: no CONFIG_SECCOMP", ST('S', 500, 500, 1, 0, -1, 0), true, INJECT_REFUSAL_NONE },
                { "a thread's seccomp", ST('S', 500, 501, 1, 0, 2, 0), false, INJECT_REFUSAL_SECCOMP },
                { "a thread of PID 1 is judged by its leader", ST('S', 1, 30, 0, 0, 0, 0), false, INJECT_REFUSAL_NONE },
#undef ST
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                InjectRefusal got = inject_refusal_for_status(&cases[i].st, 1000, cases[i].leader);
                if (got != cases[i].want)
                        g_error("refusal '%s': want %s, got %s", cases[i].name,
                                inject_refusal_to_string(cases[i].want), inject_refusal_to_string(got));
        }
        for (int r = 0; r < _INJECT_REFUSAL_MAX; r++)
                g_assert_cmpstr(inject_refusal_to_string(r), !=, "?");
}

static void test_mempolicy(void) {
        static const struct {
                const char *spec;
                int r;
                int mode;
                const char *numa_maps;
                unsigned long maxnode;
        } cases[] = {
                { "default", 0, MPOL_DEFAULT, "default", 0 },
                { "local", 0, MPOL_LOCAL, "local", 0 },
                { "preferred:1", 0, MPOL_PREFERRED, "prefer:1", 65 },
                { "preferred:0", 0, MPOL_PREFERRED, "prefer:0", 65 },
                { "interleave:0-1", 0, MPOL_INTERLEAVE, "interleave:0-1", 65 },
                { "interleave:0,1,2,5", 0, MPOL_INTERLEAVE, "interleave:0-2,5", 65 },
                { "bind:1", 0, MPOL_BIND, "bind:1", 65 },
                { "bind:70", 0, MPOL_BIND, "bind:70", 129 },
                { "preferred-many:0-1", 0, MPOL_PREFERRED_MANY, "prefer (many):0-1", 65 },
                { "weighted-interleave:0-1", 0, MPOL_WEIGHTED_INTERLEAVE, "weighted interleave:0-1", 65 },
                { "preferred:0-1", -EINVAL, 0, NULL, 0 },   /* one node only */
                { "default:0", -EINVAL, 0, NULL, 0 },
                { "bind", -EINVAL, 0, NULL, 0 },
                { "bind:", -EINVAL, 0, NULL, 0 },
                { "bind:1-0", -ERANGE, 0, NULL, 0 },
                { "bind:1024", -ERANGE, 0, NULL, 0 },
                { "bind:1,", -EINVAL, 0, NULL, 0 },
                { "bind:a", -EINVAL, 0, NULL, 0 },
                { "prefer:1", -EINVAL, 0, NULL, 0 },        /* numa_maps' spelling is not ours */
                { "", -EINVAL, 0, NULL, 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                Mempolicy p = { .mode = -7 };
                char buf[64];
                size_t words;
                int r = mempolicy_parse(cases[i].spec, &p);

                if (r != cases[i].r)
                        g_error("mempolicy '%s': want %d, got %d", cases[i].spec, cases[i].r, r);
                if (r < 0) {
                        g_assert_cmpint(p.mode, ==, -7);
                        continue;
                }
                g_assert_cmpint(p.mode, ==, cases[i].mode);
                g_assert_cmpint(mempolicy_format_numa_maps(&p, buf, sizeof(buf)), ==, 0);
                if (!g_str_equal(buf, cases[i].numa_maps))
                        g_error("mempolicy '%s': numa_maps would say '%s', not '%s'", cases[i].spec, buf,
                                cases[i].numa_maps);
                g_assert_cmpuint(mempolicy_maxnode(&p, &words), ==, cases[i].maxnode);
        }

        Mempolicy s = { .mode = MPOL_INTERLEAVE | MPOL_F_STATIC_NODES, .nodemask = { 3 } };
        char buf[64];
        g_assert_cmpint(mempolicy_format_numa_maps(&s, buf, sizeof(buf)), ==, 0);
        g_assert_cmpstr(buf, ==, "interleave=static:0-1");
}

/* Our own spelling written out, canonical, and read back the same. */
static void test_mempolicy_format(void) {
        static const struct {
                const char *spec, *canonical;
        } cases[] = {
                { "default", "default" },
                { "local", "local" },
                { "preferred:1", "preferred:1" },
                { "bind:1,0", "bind:0-1" },
                { "interleave:5,0,1,2", "interleave:0-2,5" },
                { "preferred-many:0-1", "preferred-many:0-1" },
                { "weighted-interleave:0,1", "weighted-interleave:0-1" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                Mempolicy p, again;
                char spec[64];

                g_assert_cmpint(mempolicy_parse(cases[i].spec, &p), ==, 0);
                g_assert_cmpint(mempolicy_format(&p, spec, sizeof(spec)), ==, 0);
                g_assert_cmpstr(spec, ==, cases[i].canonical);
                g_assert_cmpint(mempolicy_parse(spec, &again), ==, 0);
                g_assert_true(mempolicy_equal(&p, &again));
        }

        /* The longest list there is: every other node. */
        Mempolicy every_other = { .mode = MPOL_INTERLEAVE }, again;
        char spec[INJECT_POLICY_TEXT_MAX];
        for (size_t w = 0; w < INJECT_NODEMASK_WORDS; w++)
                every_other.nodemask[w] = 0x5555555555555555UL;
        g_assert_cmpint(mempolicy_format(&every_other, spec, sizeof(spec)), ==, 0);
        g_assert_true(g_str_has_suffix(spec, ",1020,1022"));
        g_assert_cmpint(mempolicy_parse(spec, &again), ==, 0);
        g_assert_true(mempolicy_equal(&every_other, &again));
        g_assert_cmpint(mempolicy_format(&every_other, spec, 100), ==, -ENOBUFS);

        Mempolicy flagged = { .mode = MPOL_BIND | MPOL_F_STATIC_NODES, .nodemask = { 1 } };
        g_assert_cmpint(mempolicy_format(&flagged, spec, sizeof(spec)), ==, -EINVAL);
        g_assert_false(mempolicy_equal(&flagged, &(Mempolicy) { .mode = MPOL_BIND, .nodemask = { 1 } }));
        g_assert_false(mempolicy_equal(&(Mempolicy) { .mode = MPOL_BIND, .nodemask = { 2 } },
                                       &(Mempolicy) { .mode = MPOL_BIND, .nodemask = { 1 } }));
}

static void test_fdinfo_pidfd(void) {
        static const struct {
                const char *text;
                int r;
                pid_t pid;
        } cases[] = {
                { "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1057\nPid:\t1234\nNSpid:\t1234\n", 0, 1234 },
                { "pos:\t0\nflags:\t02000002\nmnt_id:\t15\nPid:\t-1\nNSpid:\t-1\n", 0, -1 },  /* exited */
                { "Pid:\t0\n", 0, 0 },                                                       /* another namespace */
                { "Pid:\t42", 0, 42 },
                { "pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t7\n", -ENOENT, 0 },         /* a plain file */
                { "eventfd-count:\t0\nNSpid:\t5\n", -ENOENT, 0 },
                { "Pid:\t-2\n", -EINVAL, 0 },
                { "Pid:\tx\n", -EINVAL, 0 },
                { "Pid:\t12 13\n", -EINVAL, 0 },
                { "Pid:\t\n", -EINVAL, 0 },
                { "", -ENOENT, 0 },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                pid_t pid = -77;
                int r = fdinfo_pidfd_pid(cases[i].text, &pid);

                if (r != cases[i].r)
                        g_error("fdinfo case %zu: want %d, got %d", i, cases[i].r, r);
                g_assert_cmpint(pid, ==, r == 0 ? cases[i].pid : -77);
        }
}

static void test_restart_codes(void) {
        g_assert_true(syscall_return_is_restart(-512));
        g_assert_true(syscall_return_is_restart(-513));
        g_assert_true(syscall_return_is_restart(-514));
        g_assert_true(syscall_return_is_restart(-516));
        g_assert_false(syscall_return_is_restart(-515));  /* ENOIOCTLCMD is not one */
        g_assert_false(syscall_return_is_restart(-EINTR));
        g_assert_false(syscall_return_is_restart(0));
}

static void test_sysfs_nodes(void) {
        static const struct {
                const char *text;
                int r;
                unsigned long word0;
        } cases[] = {
                { "0\n", 0, 0x1 },
                { "0-1\n", 0, 0x3 },
                { "0-1,3", 0, 0xb },
                { "", -EINVAL, 0 },
                { "\n", -EINVAL, 0 },
                { "0-1\n2\n", -EINVAL, 0 },
                { "0-1\n\n", -EINVAL, 0 },
                { "zero\n", -EINVAL, 0 },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                unsigned long mask[MEMPOLICY_NODEMASK_WORDS] = {};
                int r = inject_parse_sysfs_nodes(cases[i].text, mask);
                if (r != cases[i].r)
                        g_error("'%s': want %d, got %d", g_strescape(cases[i].text, NULL), cases[i].r, r);
                if (r == 0)
                        g_assert_cmpuint(mask[0], ==, cases[i].word0);
        }
}

int main(int argc, char **argv) {
        g_test_init(&argc, &argv, NULL);
        g_test_add_func("/inject/status-parse", test_status_parse);
        g_test_add_func("/inject/maps-parse", test_maps_parse);
        g_test_add_func("/inject/numa-maps-policy", test_numa_maps_policy);
        g_test_add_func("/inject/smaps-vmflags", test_vmflags);
        g_test_add_func("/inject/refusals", test_refusals);
        g_test_add_func("/inject/mempolicy", test_mempolicy);
        g_test_add_func("/inject/mempolicy-format", test_mempolicy_format);
        g_test_add_func("/inject/fdinfo-pidfd", test_fdinfo_pidfd);
        g_test_add_func("/inject/restart-codes", test_restart_codes);
        g_test_add_func("/inject/sysfs-nodes", test_sysfs_nodes);
        return g_test_run();
}
