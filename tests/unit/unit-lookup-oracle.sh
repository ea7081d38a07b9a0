#!/bin/bash
# The layout behind test-unit-lookup.c's expected values: run it in the VM and
# compare with vm257_expected there, e.g.
#   tests/vm/run shell -C build bash -c "$(cat tests/unit/unit-lookup-oracle.sh)"
# It asks systemd (257.13 in the Debian 13 image) for Id, Names, LoadState,
# FragmentPath, DropInPaths and LoadError of each unit. Only for the VM: it
# writes to /etc, /run, /usr/lib and /opt.
set -u
E=/etc/systemd/system R=/run/systemd/system U=/usr/lib/systemd/system L=/usr/local/lib/systemd/system
mkdir -p $E $R $U $L
unit() { mkdir -p "$(dirname "$1")"; printf '[Unit]\nDescription=%s\n[Service]\nExecStart=/bin/true\n' "$(basename "$1")" > "$1"; }
conf() { mkdir -p "$(dirname "$1")"; printf '[Unit]\nDocumentation=man:%s(1)\n' "$(echo "$1" | tr '/@.' '___')" > "$1"; }
echo "== systemd $(systemctl --version | head -1)"
systemd-analyze unit-paths
# A: dash prefixes, same names across dirs, type dirs, masks, hidden, dirs, dangling
unit $U/foo-bar.service
conf $U/foo-bar.service.d/10-a.conf
conf $E/foo-.service.d/10-a.conf
conf $R/service.d/20-b.conf
conf $U/foo-.service.d/30-c.conf
conf $E/service.d/40-m.conf
conf $U/foo-bar.service.d/40-m.conf
mkdir -p $E/foo-bar.service.d; ln -s /dev/null $E/foo-bar.service.d/50-null.conf
conf $U/foo-.service.d/50-null.conf
conf $E/foo-bar.service.d/.55-hidden.conf
mkdir -p $E/foo-bar.service.d/60-dir.conf
ln -s /nonexistent/x.conf $E/foo-bar.service.d/70-dangling.conf
conf $E/foo-bar.service.d/80-notconf.txt
conf $R/foo-bar.service.d/85-run.conf
conf $L/foo-.service.d/86-local.conf
conf $E/foo-bar.service.d/87-empty.conf; : > $E/foo-bar.service.d/87-empty.conf
conf $U/service.d/87-empty.conf
# B: instance dir in /usr/lib vs template dir in /etc
unit $U/tmpl@.service
conf $U/tmpl@i1.service.d/10-x.conf
conf $E/tmpl@.service.d/10-x.conf
conf $U/tmpl@.service.d/20-t.conf
conf $E/tmpl-.service.d/30-p.conf
conf $E/tmpl-@i1.service.d/31-ip.conf
# alias of the template
ln -s $U/tmpl@.service $E/tmpl-alias@.service
conf $E/tmpl-alias@.service.d/40-ta.conf
conf $E/tmpl-alias@i1.service.d/41-tai.conf
# instance with its own file
unit $E/tmpl@own.service
# C: instance prefix dirs
unit $U/a-b@.service
for d in a-b@x a-b@ a- a-@x a-@ a-b; do conf $E/$d.service.d/10-$(echo $d | tr @ A).conf; done
conf $U/a-@.service.d/20-same.conf
conf $R/a-b@x.service.d/20-same.conf
# D: alias with its own .d; same name in alias dir and unit dir
unit $U/real2.service
ln -s $U/real2.service $E/nick2.service
conf $U/nick2.service.d/10-n.conf
conf $E/real2.service.d/20-r.conf
conf $U/real2.service.d/30-s.conf
conf $E/nick2.service.d/30-s.conf
# K: precedence; alias pointing at a weaker copy
unit $R/prec.service; unit $U/prec.service
unit $E/prec3.service; unit $U/prec3.service
ln -s $U/prec3.service $E/nick3.service
# relative alias and chain of aliases
ln -s real2.service $R/nick4.service
ln -s nick4.service $L/nick5.service
# L: empty file masks; /dev/null masks
unit $U/empty.service; : > $E/empty.service
unit $U/masked.service; ln -s /dev/null $E/masked.service
conf $E/masked.service.d/10-m.conf
# linked unit
mkdir -p /opt/units; unit /opt/units/linked.service; ln -s /opt/units/linked.service $E/linked.service
conf $E/linked.service.d/10-l.conf
# symlinked drop-in dir
unit $U/symdir.service; mkdir -p /opt/sd; conf /opt/sd/10-sd.conf; ln -s /opt/sd $E/symdir.service.d
# double dashes, trailing dash, leading dash
unit $U/foo--bar.service; conf $E/foo--.service.d/10-dd.conf; conf $E/foo-.service.d/11-d.conf
unit $U/x-y-.service; conf $E/x-y-.service.d/10.conf; conf $E/x-.service.d/11.conf; conf $E/x-y.service.d/12.conf
unit $U/-lead.service; conf $E/-.service.d/10.conf
# slice
mkdir -p $U; printf '[Slice]\n' > $U/sl-a-b.slice; conf $E/sl-.slice.d/10.conf; conf $E/slice.d/11.conf; conf $E/sl-a-.slice.d/12.conf
# alias link whose target is in a subdirectory of a unit dir / a relative path with ..
mkdir -p $U/sub; unit $U/sub/deep.service; ln -s sub/deep.service $E/deep.service
# a unit with no file but a drop-in dir (transient-like/nonexistent)
conf $E/ghost.service.d/10-g.conf
# dropin-only instance without template file
conf $E/notmpl@i.service.d/10.conf
# link to an alias whose target is in another type
printf '[Socket]\nListenStream=/run/x.sock\n' > $U/typ.socket; ln -s $U/typ.socket $E/typalias.service

systemctl daemon-reload
for u in foo-bar.service tmpl@i1.service tmpl@i2.service tmpl-alias@i1.service tmpl@own.service a-b@x.service a-b@y.service real2.service nick2.service prec.service prec3.service nick3.service nick4.service nick5.service empty.service masked.service linked.service symdir.service foo--bar.service x-y-.service -lead.service sl-a-b.slice deep.service ghost.service notmpl@i.service typalias.service; do
  echo "== $u"
  for p in Id Names LoadState FragmentPath DropInPaths LoadError; do
    printf '%s=%s\n' "$p" "$(systemctl show -P $p -- "$u" 2>&1)"
  done
done
