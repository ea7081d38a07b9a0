/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The floor of issue 8, section 3: the least work that applies the system
 * benchmark's group to its units, done as fast as D-Bus and cgroupfs allow.
 * Per unit: one SetUnitProperties(runtime=true) that carries MemorySwapMax=
 * and MemoryZSwapWriteback=, one write of memory.swap.high, one attribute.
 * The calls are pipelined, up to --window of them in flight (dbus-daemon
 * refuses more than 128 pending replies per connection by default), and the
 * writes are made while systemd works on the calls.
 *
 * Warm (units given): what policyd needs after a reload, when it knows its
 * units already.
 * Cold (--cold): ListUnits, then a Get of Slice for each unit that has a
 * cgroup and is neither inactive nor failed, pipelined too, and each unit in
 * the slice applied as its answer arrives: the reads that matching on Slice=
 * needs, and nothing more. The cgroup follows from the slice, as systemd
 * places it.
 *
 *   floor-apply [--window=N] --slice=SLICE STATE... UNIT...
 *   floor-apply --cold [--window=N] --slice=SLICE STATE...
 *
 * Prints one line of counts and its own time. Any error ends it, with a
 * message and status 1: a benchmark that skipped a unit would be fast and
 * wrong. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "system-common.h"

#define DEFAULT_WINDOW 64U

typedef struct Floor {
        sd_bus *bus;
        const char *slice;
        UnitState state;
        unsigned window;
        unsigned in_flight;
        unsigned listed, gets, sets, matched, vanished;
} Floor;

/* One call in flight; freed by its reply handler. */
typedef struct Call {
        Floor *floor;
        char *unit;
} Call;

static Call *call_new(Floor *f, const char *unit) {
        Call *c = calloc(1, sizeof *c);

        if (!c || !(c->unit = strdup(unit)))
                die("out of memory");
        c->floor = f;
        return c;
}

static void call_free(Call *c) {
        free(c->unit);
        free(c);
}

/* Runs the bus until one message was handled, waiting if need be. */
static void pump(Floor *f) {
        int r;

        r = sd_bus_process(f->bus, NULL);
        if (r < 0)
                die("the bus: %s", strerror(-r));
        if (r > 0)
                return;
        r = sd_bus_wait(f->bus, UINT64_MAX);
        if (r < 0 && r != -EINTR)
                die("waiting on the bus: %s", strerror(-r));
}

static void wait_for_room(Floor *f) {
        while (f->in_flight >= f->window)
                pump(f);
}

static int on_set_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Call *c = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);

        if (e)
                die("SetUnitProperties %s: %s: %s", c->unit, e->name, e->message);
        c->floor->in_flight--;
        call_free(c);
        return 1;
}

static void apply_unit(Floor *f, const char *unit, const char *unit_slice) {
        sd_bus_message *m = NULL;
        char *dir = NULL;
        int r, fd;

        r = unit_state_set_properties_message(f->bus, unit, &f->state, &m);
        if (r < 0)
                die("SetUnitProperties %s: building the call: %s", unit, strerror(-r));
        r = sd_bus_call_async(f->bus, NULL, m, on_set_reply, call_new(f, unit), 0);
        sd_bus_message_unref(m);
        if (r < 0)
                die("SetUnitProperties %s: %s", unit, strerror(-r));
        f->in_flight++;
        f->sets++;

        /* systemd works on the call meanwhile. */
        r = unit_cgroup_dir(unit_slice, unit, &dir);
        if (r < 0)
                die("the cgroup of %s in %s: %s", unit, unit_slice, strerror(-r));
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                die("%s: %m", dir);
        r = unit_state_write_direct(fd, &f->state);
        if (r < 0)
                die("%s: %s", dir, strerror(-r));
        close(fd);
        free(dir);
}

static int on_slice_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        Call *c = userdata;
        Floor *f = c->floor;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        const char *unit_slice;
        int r;

        f->in_flight--;
        if (e && (sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.UnknownObject") ||
                  sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit"))) {
                /* Gone since ListUnits: nothing to match. */
                f->vanished++;
                call_free(c);
                return 1;
        }
        if (e)
                die("Get Slice of %s: %s: %s", c->unit, e->name, e->message);
        r = sd_bus_message_read(m, "v", "s", &unit_slice);
        if (r < 0)
                die("Get Slice of %s: %s", c->unit, strerror(-r));
        if (*unit_slice && slice_is_within(unit_slice, f->slice)) {
                f->matched++;
                apply_unit(f, c->unit, unit_slice);
        }
        call_free(c);
        return 1;
}

static const char *cgroup_interface(const char *unit) {
        static const struct {
                const char *suffix, *interface;
        } types[] = {
                { ".service", "org.freedesktop.systemd1.Service" },
                { ".scope", "org.freedesktop.systemd1.Scope" },
                { ".slice", "org.freedesktop.systemd1.Slice" },
                { ".socket", "org.freedesktop.systemd1.Socket" },
                { ".mount", "org.freedesktop.systemd1.Mount" },
                { ".swap", "org.freedesktop.systemd1.Swap" },
        };
        const char *dot = strrchr(unit, '.');

        for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
                if (strcmp(dot, types[i].suffix) == 0)
                        return types[i].interface;
        return NULL;
}

static void run_cold(Floor *f) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *name, *active, *path;
        int r;

        r = sd_bus_call_method(f->bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "ListUnits", &error, &reply, "");
        if (r < 0)
                die("ListUnits: %s", error.message ?: strerror(-r));
        r = sd_bus_message_enter_container(reply, 'a', "(ssssssouso)");
        if (r < 0)
                die("ListUnits: %s", strerror(-r));
        while ((r = sd_bus_message_read(reply, "(ssssssouso)", &name, NULL, NULL, &active, NULL, NULL, &path,
                                        NULL, NULL, NULL)) > 0) {
                const char *interface = cgroup_interface(name);

                f->listed++;
                if (!interface || strcmp(active, "inactive") == 0 || strcmp(active, "failed") == 0)
                        continue;
                wait_for_room(f);
                r = sd_bus_call_method_async(f->bus, NULL, "org.freedesktop.systemd1", path,
                                             "org.freedesktop.DBus.Properties", "Get", on_slice_reply,
                                             call_new(f, name), "ss", interface, "Slice");
                if (r < 0)
                        die("Get Slice of %s: %s", name, strerror(-r));
                f->in_flight++;
                f->gets++;
        }
        if (r < 0)
                die("ListUnits: %s", strerror(-r));
        sd_bus_message_unref(reply);
}

static void usage(void) {
        printf("floor-apply [--cold] [--window=N] --slice=SLICE STATE... [UNIT...]\n\n"
               "Applies STATE to UNITs in SLICE (or, with --cold, to every unit found\n"
               "in SLICE) with pipelined SetUnitProperties calls and direct writes.\n\n"
               "  --slice=SLICE                the slice the units are in\n"
               "  --cold                       find the units: ListUnits and a Get of Slice each\n"
               "  --window=N                   calls in flight at most (default %u)\n"
               STATE_OPTIONS_HELP, DEFAULT_WINDOW);
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "cold", no_argument, NULL, 'c' },
                { "window", required_argument, NULL, 'w' },
                { "slice", required_argument, NULL, 's' },
                { "swap-max", required_argument, NULL, 0 },
                { "swap-high", required_argument, NULL, 0 },
                { "zswap-writeback", required_argument, NULL, 0 },
                { "xattr", required_argument, NULL, 0 },
                {}
        };
        Floor f = { .window = DEFAULT_WINDOW };
        bool cold = false;
        uint64_t start;
        int c, index, r;

        while ((c = getopt_long(argc, argv, "h", options, &index)) >= 0)
                switch (c) {
                case 'h':
                        usage();
                        return 0;
                case 'c':
                        cold = true;
                        break;
                case 'w':
                        f.window = (unsigned) atoi(optarg);
                        if (f.window == 0)
                                die("--window must be a positive number, not %s", optarg);
                        break;
                case 's':
                        f.slice = optarg;
                        break;
                case 0:
                        unit_state_option(&f.state, options[index].name, optarg);
                        break;
                default:
                        return 2;
                }
        unit_state_require(&f.state, "floor-apply");
        if (!f.slice)
                die("--slice is needed");
        if (cold == (optind < argc))
                die(cold ? "--cold finds the units itself: give none" : "no units given");

        r = sd_bus_open_system(&f.bus);
        if (r < 0)
                die("the system bus: %s", strerror(-r));

        start = now_usec();
        if (cold)
                run_cold(&f);
        else
                for (int i = optind; i < argc; i++) {
                        wait_for_room(&f);
                        apply_unit(&f, argv[i], f.slice);
                        f.matched++;
                }
        while (f.in_flight > 0)
                pump(&f);

        printf("floor-apply: mode=%s listed=%u gets=%u vanished=%u sets=%u units=%u window=%u elapsed_ms=%.1f\n",
               cold ? "cold" : "warm", f.listed, f.gets, f.vanished, f.sets, f.matched, f.window,
               (double) (now_usec() - start) / 1000.0);
        sd_bus_flush_close_unref(f.bus);
        return 0;
}
