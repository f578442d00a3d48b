#!/bin/bash
# README's two commands on a fresh Debian 12: a `debootstrap --variant=minbase bookworm` folder
# with nothing added but the Swift toolchain's own dependencies (the list swift.org gives for
# Debian 12 at https://www.swift.org/install/linux/tarball/) and what README asks for before
# its commands (`make`), the toolchain bind-mounted read-only at /opt/swift, a `git clone` of
# this repository, and `make demo` then `make test` run inside it as root. Whatever fails there
# is the project's to fix, never the folder's.
#
#   sudo Tools/fresh-machine-trial.sh            # everything; the log and the timings go to $TRIAL_DIR
#   TRIAL_STEPS=demo sudo Tools/fresh-machine-trial.sh        # only `make demo`
#
# Knobs (environment):
#   TRIAL_DIR     where the folder, the cached base and the logs go (/var/tmp/tributary-trial)
#   TRIAL_REPO    the repository to clone (the one this script is in); TRIAL_REF what to check
#                 out (HEAD of TRIAL_REPO: commit the change under trial first)
#   TRIAL_MIRROR  the Debian mirror (the first http(s) debian URI of this machine's apt sources,
#                 else http://deb.debian.org/debian)
#   TRIAL_STEPS   the make targets to run, in order ("demo test")
#   TRIAL_NICE    niceness of the commands run in the folder (10)
#   TRIAL_KEEP=1  leave the folder (and its mounts undone) after the run, to look inside
#   SWIFT_DIR     the toolchain folder to bind-mount at /opt/swift (/opt/swift)
#   TRIAL_PIP_CERT  a CA bundle for pip only (default: this machine's own pip `cert`, from
#                 PIP_CERT or pip's config `global.cert`, if it has one): where PyPI is reached
#                 through a TLS-inspecting proxy, pip in the folder trusts that proxy as pip does
#                 here; it is copied into the folder and given as PIP_CERT to the make commands,
#                 and nothing else (the system's CAs, which the tests' TLS checks use, stay
#                 Debian's own). Set it to "" to pass none.
#
# The debootstrap result is cached as $TRIAL_DIR/base-bookworm-minbase.tar (delete it to start
# over); every trial unpacks a new folder from it, so one trial never sees what the last left.
# It needs root (debootstrap, chroot, mount), apt access to a Debian mirror, and about 6 GiB.
# Writes $TRIAL_DIR/trial.log (everything) and $TRIAL_DIR/result.txt (each step, its exit
# status and its time), and exits with the first failing step's status.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
TRIAL_DIR=${TRIAL_DIR:-/var/tmp/tributary-trial}
TRIAL_REPO=${TRIAL_REPO:-$here}
TRIAL_REF=${TRIAL_REF:-$(git -C "$TRIAL_REPO" rev-parse HEAD)}
TRIAL_STEPS=${TRIAL_STEPS:-demo test}
TRIAL_NICE=${TRIAL_NICE:-10}
SWIFT_DIR=${SWIFT_DIR:-/opt/swift}
if [ -z "${TRIAL_MIRROR:-}" ]; then
	TRIAL_MIRROR=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE 'https?://[^ ]+/debian/?( |$)' | grep -v security | head -1 | tr -d ' ' || true)
	TRIAL_MIRROR=${TRIAL_MIRROR:-http://deb.debian.org/debian}
fi
TRIAL_MIRROR=${TRIAL_MIRROR%/}
SECURITY_MIRROR=${TRIAL_SECURITY_MIRROR:-${TRIAL_MIRROR%/debian}/debian-security}

# What https://www.swift.org/install/linux/tarball/ lists for Debian 12, installed the way the
# page says (`apt install`, so with apt's default of recommended packages).
SWIFT_DEPENDENCIES="binutils-gold gcc git libcurl4-openssl-dev libedit-dev libicu-dev libncurses-dev
libpython3-dev libsqlite3-dev libxml2-dev pkg-config tzdata uuid-dev"
# What README's "Try it" asks for before its two commands: `make` (a minimal Debian 12 has none).
README_PREREQUISITES="make"

[ "$(id -u)" = 0 ] || { echo "fresh-machine-trial: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-machine-trial: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }
[ -x "$SWIFT_DIR/usr/bin/swift" ] || { echo "fresh-machine-trial: no toolchain at $SWIFT_DIR (SWIFT_DIR=)" >&2; exit 2; }

mkdir -p "$TRIAL_DIR"
base=$TRIAL_DIR/base-bookworm-minbase.tar
root=$TRIAL_DIR/root
log=$TRIAL_DIR/trial.log
result=$TRIAL_DIR/result.txt
: > "$result"
exec > >(tee -a "$log") 2>&1
echo "== $(date -u +%FT%TZ) fresh-machine trial of $TRIAL_REPO at $TRIAL_REF (mirror $TRIAL_MIRROR)"

mounted=()
undo_mounts() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null || true
	done
	mounted=()
}
cleanup() {
	undo_mounts
	if [ "${TRIAL_KEEP:-0}" != 1 ] && [ -d "$root" ]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

note() { printf '%s\n' "$*" | tee -a "$result"; }
# step NAME COMMAND...: run, time, note the outcome; stop the trial on failure.
step() {
	local name=$1 start status
	shift
	start=$(date +%s)
	echo "== $(date -u +%FT%TZ) $name"
	set +e
	"$@"
	status=$?
	set -e
	note "$name: exit $status after $(($(date +%s) - start)) s"
	if [ $status != 0 ]; then exit $status; fi
}

if [ ! -s "$base" ]; then
	rm -rf --one-file-system "$TRIAL_DIR/base"
	step "debootstrap --variant=minbase bookworm" \
		debootstrap --variant=minbase bookworm "$TRIAL_DIR/base" "$TRIAL_MIRROR"
	tar -C "$TRIAL_DIR/base" -cf "$base.partial" . && mv "$base.partial" "$base"
	rm -rf --one-file-system "$TRIAL_DIR/base"
fi

if [ -d "$root" ]; then undo_mounts; rm -rf --one-file-system "$root"; fi
mkdir -p "$root"
tar -C "$root" -xf "$base"

# A Debian 12 machine's apt sources: the release, its updates and security.
cat > "$root/etc/apt/sources.list" <<EOF
deb $TRIAL_MIRROR bookworm main
deb $TRIAL_MIRROR bookworm-updates main
deb $SECURITY_MIRROR bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# What a booted machine has mounted: /proc, /sys, /dev with /dev/pts and /dev/shm (a tmpfs,
# where PostgreSQL puts its shared memory), and /run a tmpfs.
bind() { mount "$@" && mounted+=("${*: -1}"); }
bind -t proc proc "$root/proc"
bind --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
bind --bind /dev "$root/dev"
bind -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
bind -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
bind -t tmpfs -o mode=755 tmpfs "$root/run"
mkdir -p "$root/opt/swift"
bind --bind "$SWIFT_DIR" "$root/opt/swift"
mount -o remount,bind,ro "$root/opt/swift"

pip_env=()
if [ -z "${TRIAL_PIP_CERT+set}" ]; then
	TRIAL_PIP_CERT=${PIP_CERT:-$(python3 -m pip config list 2>/dev/null | sed -n "s/^global\.cert='\(.*\)'\$/\1/p" | head -1 || true)}
fi
if [ -n "$TRIAL_PIP_CERT" ]; then
	[ -r "$TRIAL_PIP_CERT" ] || { echo "fresh-machine-trial: TRIAL_PIP_CERT=$TRIAL_PIP_CERT cannot be read" >&2; exit 2; }
	mkdir -p "$root/usr/local/share/fresh-machine-trial"
	cp "$TRIAL_PIP_CERT" "$root/usr/local/share/fresh-machine-trial/pip-ca.crt"
	pip_env=(PIP_CERT=/usr/local/share/fresh-machine-trial/pip-ca.crt)
	note "pip in the folder trusts $TRIAL_PIP_CERT (this machine's pip cert; PIP_CERT for the make commands only)"
fi

in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		nice -n "$TRIAL_NICE" "$@"
}

# shellcheck disable=SC2086
step "the toolchain's dependencies (apt-get install $(echo $SWIFT_DEPENDENCIES))" \
	in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(echo $SWIFT_DEPENDENCIES) >/dev/null"
step "README's prerequisites (apt-get install $README_PREREQUISITES)" \
	in_root sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $README_PREREQUISITES >/dev/null"
note "packages in the folder before the project's commands: $(in_root dpkg-query -W -f '.\n' | wc -l)"
step "swift --version" in_root swift --version

step "git clone" git clone -q --no-hardlinks "$TRIAL_REPO" "$root/root/tributary"
git -C "$root/root/tributary" checkout -q "$TRIAL_REF"
note "commit under trial: $(git -C "$root/root/tributary" log -1 --format='%h %s' | cut -c1-100)"

for target in $TRIAL_STEPS; do
	step "make $target" in_root env "${pip_env[@]}" sh -c "cd /root/tributary && make $target"
	note "packages in the folder after make $target: $(in_root dpkg-query -W -f '.\n' | wc -l)"
done
note "fresh-machine trial passed: $TRIAL_STEPS"
