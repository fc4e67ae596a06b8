# SPDX-License-Identifier: GPL-2.0
#
# clockpro: CLOCK-Pro nonresident tracking and active-list balancing for
# stock kernels.  `make help` lists the targets.

# Kbuild (read by the kernel's make for M=) holds the module's build;
# this file is for people and DKMS-free scripts only.

KVER	?= $(shell uname -r)
KDIR	?= /lib/modules/$(KVER)/build
PWD	:= $(CURDIR)
BUILD	:= $(CURDIR)/.build

# The test matrix: every kernel with headers installed by
# scripts/install-deps.sh, newest last.
MATRIX_KVERS ?= $(sort $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/6.*-amd64/build))))

MODULE_SRCS := Kbuild $(wildcard module/*.c module/*.h include/clockpro/*.h)

.PHONY: all module tools modules-matrix modules-new check-new check-all check check-unit check-sim check-vm \
	shellcheck \
	check-quick bench bench-core readme-tables bench-json bench-cost bench-safety demo lint checkpatch sparse install \
	dkms-install dkms-uninstall deb sign check-dkms check-modsig-vm \
	shellcheck-dkms \
	clean help deps

all: module tools

deps:
	scripts/install-deps.sh

module:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "clockpro: no kernel headers in $(KDIR): install linux-headers-$(KVER) (or run scripts/install-deps.sh, or pass KVER=/KDIR=)" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(PWD) modules

tools:
	$(MAKE) -C tools

# One out-of-tree build directory per kernel: .build/<kver>/clockpro.ko
modules-matrix:
	@[ -n "$(MATRIX_KVERS)" ] || { echo "clockpro: no kernel headers under /lib/modules: run scripts/install-deps.sh" >&2; exit 1; }
	@set -e; for v in $(MATRIX_KVERS); do \
		d=$(BUILD)/$$v; mkdir -p $$d; \
		cp -r Kbuild module include $$d/; \
		echo "  BUILD   $$v"; \
		$(MAKE) -s -C /lib/modules/$$v/build M=$$d W=1 modules; \
	done

# The newer kernels, kept off the host (scripts/matrix-kernels.sh): Debian
# trixie's current 6.12 and sid's newest, downloaded from the apt mirror and
# unpacked into a sid chroot (scripts/mkchroot.sh) whose gcc-14 and gcc-16
# build for them; cached in .build (chroot/, apt/, kernel-debs/).
# Needs root (debootstrap, chroot).
NEW_ROOT := $(BUILD)/chroot/sid
modules-new:
	scripts/mkchroot.sh $(NEW_ROOT)
	CP_MATRIX_ROOT=$(NEW_ROOT) scripts/matrix-kernels.sh fetch
	CP_MATRIX_ROOT=$(NEW_ROOT) scripts/matrix-kernels.sh build $(BUILD)

# DKMS and the .deb in the chroot for them (check-dkms-new.sh), then boot
# them: smoke, hooks, observe and the enforce loop, MGLRU off and on (W=1
# and sparse in the chroot's build; ~10 min on two CPUs, downloads
# included).  Part of make check; skipped, and said so, when not root.
check-new:
	@if [ "$$(id -u)" != 0 ]; then \
		echo "check-new: SKIP: needs root (debootstrap, chroot)"; exit 0; fi; \
	$(MAKE) modules-new && \
	selftests/dkms/check-dkms-new.sh $(NEW_ROOT) $(BUILD) $$(cat $(BUILD)/matrix-kvers) && \
	$(MAKE) -C selftests check-new KVERS="$$(cat $(BUILD)/matrix-kvers)" \
		KROOT=$(NEW_ROOT) BUILD=$(BUILD)

check: lint check-unit check-sim check-vm check-dkms check-modsig-vm check-new

# Everything: make check, then every suite on the newer kernels too
# (enforce's workloads with MGLRU off and on, SMP stress; about an hour of
# guests more).
check-all: check
	@if [ "$$(id -u)" != 0 ]; then \
		echo "check-all: SKIP the newer kernels: needs root"; exit 0; fi; \
	$(MAKE) -C selftests check-new-full KVERS="$$(cat $(BUILD)/matrix-kvers)" \
		KROOT=$(NEW_ROOT) BUILD=$(BUILD)

check-quick:
	$(MAKE) -C tools/testing check-quick

check-unit:
	$(MAKE) -C tools/testing check
	tools/testing/test-bench-json.sh

check-sim:
	$(MAKE) -C tools sim
	tools/sim/compare-lirs.sh
	tools/sim/moving-bench.sh --check

check-vm: modules-matrix
	$(MAKE) -C tools refaultdist
	$(MAKE) -C selftests check KVERS="$(MATRIX_KVERS)" BUILD=$(BUILD)

bench-core:
	$(MAKE) -C tools/testing bench

bench: modules-matrix bench-core
	$(MAKE) -C selftests bench KVERS="$(MATRIX_KVERS)" BUILD=$(BUILD)
	scripts/readme-tables.sh --bench $(BUILD)/bench
	scripts/bench-json.sh $(BUILD)/bench

# The README's result tables from .build/bench (make bench writes them).
readme-tables:
	scripts/readme-tables.sh --bench $(BUILD)/bench

# Every figure of .build/bench in one file, results.json (and cost.png).
bench-json:
	scripts/bench-json.sh $(BUILD)/bench

# The safety part of `make bench` alone (NUMA loop, two memcgs, OOM, PSI).
bench-safety: modules-matrix
	$(MAKE) -C selftests bench-safety KVERS="$(MATRIX_KVERS)" BUILD=$(BUILD)

# The CPU-cost part of `make bench` alone (qemu -icount, instructions per op).
bench-cost: modules-matrix
	$(MAKE) -C selftests bench-cost KVERS="$(MATRIX_KVERS)" BUILD=$(BUILD)

demo: deps modules-matrix
	$(MAKE) -C selftests demo KVERS="$(MATRIX_KVERS)" BUILD=$(BUILD)

# Kernel style gates: checkpatch --strict, sparse, W=1 (modules-matrix).
CHECKPATCH ?= /usr/local/share/clockpro/checkpatch/checkpatch.pl
lint: checkpatch sparse modules-matrix shellcheck shellcheck-dkms

shellcheck:
	$(MAKE) -C selftests shellcheck
	shellcheck -x scripts/*.sh tools/testing/test-bench-json.sh
	shellcheck tools/clockprostat tools/testing/test_clockprostat.sh

checkpatch:
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		-f module/*.c $(filter-out %/clockpro_trace.h,$(wildcard module/*.h)) \
		$(filter-out %/compat.h,$(wildcard include/clockpro/*.h))
	@# TRACE_EVENT()'s own layout (include/trace/events/): open-ended
	@# TP_STRUCT__entry(, {value, name} tables as macros.
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore COMPLEX_MACRO,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
		-f module/clockpro_trace.h
	@# The version checks live here alone, by design.
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f include/clockpro/compat.h

sparse:
	@set -e; for v in $(MATRIX_KVERS); do \
		d=$(BUILD)/sparse-$$v; rm -rf $$d; mkdir -p $$d; \
		cp -r Kbuild module include $$d/; \
		echo "  SPARSE  $$v"; \
		$(MAKE) -s -C /lib/modules/$$v/build M=$$d C=2 modules 2>&1 | \
			tee $$d/sparse.log; \
		! grep -E "warning|error" $$d/sparse.log; \
	done

install: module
	$(MAKE) -C $(KDIR) M=$(PWD) modules_install
	depmod -a $(KVER)

# DKMS, the Debian package, module signing (docs/install.md).
dkms-install:
	scripts/dkms-install.sh

dkms-uninstall:
	scripts/dkms-install.sh --remove

deb:
	scripts/mkdeb.sh $(BUILD)/deb

# make sign [KEY=key.pem CERT=cert.x509]: .build/signed/<kver>/clockpro.ko
# for every kernel of the matrix; without KEY/CERT, a key pair made once in
# .build/signing/.
KEY ?=
CERT ?=
sign: modules-matrix
	scripts/modsign.sh sign-all "$(KEY)" "$(CERT)" $(BUILD) $(BUILD)/signed $(MATRIX_KVERS)

shellcheck-dkms:
	shellcheck -x scripts/*.sh selftests/dkms/*.sh selftests/dkms/guest/*.sh \
		packaging/debian/clockpro-dkms.postinst

# Host: DKMS install/uninstall, the .deb, signatures (root; 2-4 min).
check-dkms: sign
	selftests/dkms/check-dkms.sh $(BUILD)

# qemu: sig_enforce, lockdown and permissive boots of each kernel (~1.5 min).
check-modsig-vm: sign
	selftests/dkms/vm-modsig.sh $(MATRIX_KVERS)

clean:
	-$(MAKE) -C $(KDIR) M=$(PWD) clean 2>/dev/null
	-$(MAKE) -C tools clean
	-$(MAKE) -C selftests clean
	rm -rf $(BUILD)

help:
	@echo "make [KVER=<release>|KDIR=<dir>]  build clockpro.ko (and tools)"
	@echo "make demo        install deps, boot stock kernels in qemu, show the histogram"
	@echo "make check       all tests: unit, simulator, VM selftests on 6.1 and 6.12"
	@echo "make check-all   make check, then smoke/hooks/observe on trixie's and sid's"
	@echo "make modules-new clockpro.ko for trixie's and sid's kernels (a sid chroot)"
	@echo "make check-new   their build and boot tests alone"
	@echo "make check-quick fast user-space tests only"
	@echo "make bench       hit-ratio matrix (VM), table cost and CPU cost benchmarks"
	@echo "make bench-cost  CPU cost alone: instructions per op under qemu -icount"
	@echo "make bench-safety  NUMA loop, two memcgs, OOM kills, PSI: stock vs enforce"
	@echo "make bench-json  .build/bench/results.json (+ cost.png) from the bench CSVs"
	@echo "make lint        checkpatch --strict, sparse, W=1 on every kernel"
	@echo "make install     install for KVER (docs/install.md)"
	@echo "make dkms-install   DKMS build+install for every kernel with headers;"
	@echo "                 make dkms-uninstall removes it"
	@echo "make deb         .build/deb/clockpro-dkms_<version>-1_all.deb"
	@echo "make sign [KEY=key.pem CERT=cert]  sign into .build/signed/<kver>/"
	@echo "make check-dkms  DKMS, .deb and signing tests on this host (root)"
	@echo "make check-modsig-vm  sig_enforce/lockdown boots in qemu"
