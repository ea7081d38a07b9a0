/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replays a corpus through a fuzz target without libFuzzer, so the corpus
 * runs as an ordinary test in every build (and under ASan/valgrind). Prints
 * TAP: one line per input. */

#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "conf-parse.h"
#include "fuzz.h"
#include "util.h"

static unsigned n_run;

static void replay_file(const char *path) {
        g_autofree char *data = NULL;
        size_t size = 0;
        int r = read_full_file(path, &data, &size);

        if (r < 0) {
                printf("not ok %u - %s: cannot read: %s\n", ++n_run, path, g_strerror(-r));
                exit(EXIT_FAILURE);
        }
        /* A crash or sanitizer report ends the process before the "ok". */
        (void) LLVMFuzzerTestOneInput((const uint8_t *) data, size);
        printf("ok %u - %s\n", ++n_run, path);
}

static void replay_path(const char *path) {
        if (!g_file_test(path, G_FILE_TEST_IS_DIR)) {
                replay_file(path);
                return;
        }
        g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        const char *e;
        while (d && (e = g_dir_read_name(d)))
                g_ptr_array_add(names, g_build_filename(path, e, NULL));
        g_ptr_array_sort(names, strcmp_ptr);
        for (guint i = 0; i < names->len; i++)
                replay_path(g_ptr_array_index(names, i));
}

int main(int argc, char **argv) {
        if (argc < 2) {
                fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
                return 2;
        }
        for (int i = 1; i < argc; i++)
                replay_path(argv[i]);
        if (n_run == 0) {
                printf("1..0 # SKIP empty corpus\n");
                return 77;
        }
        printf("1..%u\n", n_run);
        return 0;
}
