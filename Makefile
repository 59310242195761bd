# chuhe build.  `make help` lists the targets.
#
# MODE=release (default), debug, san or tsan selects the flags.  Each mode keeps its
# objects in build/$(MODE)/; binaries go to bin/ (release), bin/debug/, bin/san/ or
# bin/tsan/.

MODE ?= release
WERROR ?= 1

ifeq ($(origin CC),default)
CC := gcc
endif
AR ?= ar
PKG_CONFIG ?= pkg-config

ifeq ($(MODE),release)
MODE_CFLAGS := -O3 -g
ASSERT_FLAGS := -DNDEBUG
BINDIR := bin
else ifeq ($(MODE),debug)
MODE_CFLAGS := -O1 -g -DCHUHE_DEBUG
ASSERT_FLAGS :=
BINDIR := bin/debug
else ifeq ($(MODE),san)
MODE_CFLAGS := -O1 -g -DCHUHE_DEBUG -fsanitize=address,undefined -fno-omit-frame-pointer \
               -fno-sanitize-recover=undefined
ASSERT_FLAGS :=
BINDIR := bin/san
TEST_ENV := ASAN_OPTIONS=$${ASAN_OPTIONS:-detect_leaks=1} \
            UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
else ifeq ($(MODE),tsan)
MODE_CFLAGS := -O1 -g -fsanitize=thread -fno-omit-frame-pointer
ASSERT_FLAGS :=
BINDIR := bin/tsan
TEST_ENV := TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
else
$(error MODE must be release, debug, san or tsan, not '$(MODE)')
endif

BUILDDIR := build/$(MODE)

# Hardware popcount is most of the speed of bitboard code: x86-64-v2 (2009 and later)
# has it. Override with ARCH=native, ARCH=avx2 (x86-64-v3, 2013 and later: the NNUE
# inner loops in AVX2), or ARCH= for a generic build.
ifeq ($(shell uname -m),x86_64)
ARCH ?= x86-64-v2
endif
ARCH_CFLAGS := $(if $(filter avx2,$(ARCH)),-march=x86-64-v3,$(if $(ARCH),-march=$(ARCH)))

WARNINGS := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS stay free for the caller.
GENDIR := build/gen
BASE_CPPFLAGS := -I. -Iengine -I$(GENDIR) $(CPPFLAGS)
BASE_CFLAGS := -std=gnu11 -pthread $(ARCH_CFLAGS) $(WARNINGS) $(MODE_CFLAGS) $(CFLAGS)
COMPILE = $(CC) $(BASE_CPPFLAGS) -DCHUHE_VERSION=\"$(VERSION)\" $(ASSERT_FLAGS) $(PKG_CFLAGS) \
          $(BASE_CFLAGS) -MMD -MP -c $< -o $@
LINK = $(CC) $(BASE_CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LOCAL_LIBS) $(LIB) $(PKG_LIBS) \
       $(LDLIBS) -lm

pkg_cflags = $(if $(1),$(shell $(PKG_CONFIG) --cflags $(1)))
pkg_libs = $(if $(1),$(shell $(PKG_CONFIG) --libs $(1)))

# The engine library.
ENGINE_SRCS := $(wildcard engine/*.c)
ENGINE_OBJS := $(ENGINE_SRCS:%.c=$(BUILDDIR)/%.o)
LIB := $(BUILDDIR)/libchuhe.a

# Programs: each NAME in PROGRAMS is built from NAME_DIR/*.c but the files in NAME_SKIP,
# and the library, with the compile and link flags of the pkg-config packages in
# NAME_PKGS.
PROGRAMS := chuhe-engine
chuhe-engine_DIR := uci
chuhe-engine_PKGS :=

PROGRAMS += chuhe-tune
chuhe-tune_DIR := tuning
chuhe-tune_PKGS := hdf5-serial ompi-c
chuhe-tune_SKIP := tuning/netmain.c

# The network trainer: the tuner's modules (loader, collectives, options, report) with
# its own main.
PROGRAMS += chuhe-train
chuhe-train_DIR := tuning
chuhe-train_PKGS := hdf5-serial ompi-c
chuhe-train_SKIP := tuning/main.c

# The self-play hub: ZeroMQ server and HDF5 run file (every coordinator/*.c), and its
# live page (libmicrohttpd).
PROGRAMS += chuhe-coordinator
chuhe-coordinator_DIR := coordinator
chuhe-coordinator_PKGS := hdf5-serial libzmq libmicrohttpd

# The MPI worker: compiled and linked with the flags `mpicc -showme` gives (pkg-config
# ompi-c), plus the wire protocol and key files from contracts/ and the external engines
# of extengine/.
PROGRAMS += chuhe-worker
chuhe-worker_DIR := worker
chuhe-worker_PKGS := ompi-c libzmq

define PROGRAM_template
$(1)_OBJS := $$(patsubst %.c,$$(BUILDDIR)/%.o,$$(filter-out $$($(1)_SKIP),$$(wildcard $$($(1)_DIR)/*.c)))
$$($(1)_OBJS): private PKG_CFLAGS = $$(call pkg_cflags,$$($(1)_PKGS))
$$(BINDIR)/$(1): private PKG_LIBS = $$(call pkg_libs,$$($(1)_PKGS))
$$(BINDIR)/$(1): $$($(1)_OBJS) $$(LIB)
	@mkdir -p $$(@D)
	$$(LINK)
PROGRAM_OBJS += $$($(1)_OBJS)
PROGRAM_BINS += $$(BINDIR)/$(1)
endef
$(foreach p,$(PROGRAMS),$(eval $(call PROGRAM_template,$(p))))

# contracts/: what the programs agree on (wire protocol, run file, key files,
# statistics), a library that the coordinator, the worker, the tuner and tests link.
CONTRACTS_SRCS := $(wildcard contracts/*.c)
CONTRACTS_OBJS := $(CONTRACTS_SRCS:%.c=$(BUILDDIR)/%.o)
CONTRACTS_LIB := $(BUILDDIR)/libcontracts.a
CONTRACTS_PKGS := hdf5-serial libzmq

$(CONTRACTS_OBJS): private PKG_CFLAGS = $(call pkg_cflags,$(CONTRACTS_PKGS))
$(CONTRACTS_LIB): $(CONTRACTS_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# extengine/: driving external engines (process, transport, the UCI/UCCI and XBoard
# dialogues, option discovery), a library that the worker, the coordinator (SPSA's
# probe) and tests link. It needs libc alone.
EXTENGINE_SRCS := $(wildcard extengine/*.c)
EXTENGINE_OBJS := $(EXTENGINE_SRCS:%.c=$(BUILDDIR)/%.o)
EXTENGINE_LIB := $(BUILDDIR)/libextengine.a

$(EXTENGINE_LIB): $(EXTENGINE_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# The worker's modules but its main program and its MPI messages (diag.c) as a library
# that tests link (a test that uses it brings its own diag_info and diag_warn).
WORKER_LIB := $(BUILDDIR)/libworker.a
WORKER_LIB_OBJS := $(filter-out %/worker/main.o %/worker/diag.o,$(chuhe-worker_OBJS))

$(WORKER_LIB): $(WORKER_LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# The coordinator's modules (all but its main program) as a library that tests link.
COORD_SRCS := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c))
COORD_OBJS := $(COORD_SRCS:%.c=$(BUILDDIR)/%.o)
COORD_LIB := $(BUILDDIR)/libcoordinator.a
COORD_PKGS := hdf5-serial libzmq libmicrohttpd

$(COORD_OBJS): private PKG_CFLAGS = $(call pkg_cflags,$(COORD_PKGS))
$(COORD_LIB): $(COORD_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

# The tuner links the run-file reader and a second build of engine/evaluate.c with the
# trace compiled in (CHUHE_TRACE: only evaluate_traced; the rest comes from the library).
# Its modules but main and the MPI glue form libtune.a, which tests link without MPI.
TUNE_TRACE_OBJ := $(BUILDDIR)/tuning/evaluate_trace.o
TUNE_LIB := $(BUILDDIR)/libtune.a
TUNE_LIB_OBJS := $(filter-out %/tuning/main.o %/tuning/comm_mpi.o,$(chuhe-tune_OBJS)) \
                 $(TUNE_TRACE_OBJ)

$(TUNE_TRACE_OBJ): private PKG_CFLAGS = -DCHUHE_TRACE
$(TUNE_TRACE_OBJ): engine/evaluate.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(COMPILE)

$(TUNE_LIB): $(TUNE_LIB_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(BINDIR)/chuhe-tune $(BINDIR)/chuhe-train: $(TUNE_TRACE_OBJ) $(CONTRACTS_LIB)
$(BINDIR)/chuhe-tune $(BINDIR)/chuhe-train: private LOCAL_LIBS = $(CONTRACTS_LIB)

$(BINDIR)/chuhe-engine: private LOCAL_LIBS = $(CONTRACTS_LIB)
$(BINDIR)/chuhe-engine: $(CONTRACTS_LIB)

$(BINDIR)/chuhe-worker: private LOCAL_LIBS = $(EXTENGINE_LIB) $(CONTRACTS_LIB)
$(BINDIR)/chuhe-worker: $(EXTENGINE_LIB) $(CONTRACTS_LIB)

$(BINDIR)/chuhe-coordinator: private LOCAL_LIBS = $(EXTENGINE_LIB) $(CONTRACTS_LIB)
$(BINDIR)/chuhe-coordinator: $(EXTENGINE_LIB) $(CONTRACTS_LIB)

# Tests: tests/test_NAME.c + tests/support/*.c + the programs' module libraries + the
# library -> $(BINDIR)/tests/test_NAME.
# Test code always keeps its asserts, whatever the mode.
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILDDIR)/%.o)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(BINDIR)/tests/%)
SUPPORT_SRCS := $(wildcard tests/support/*.c)
SUPPORT_OBJS := $(SUPPORT_SRCS:%.c=$(BUILDDIR)/%.o)
TEST_PKGS := cmocka $(COORD_PKGS)

$(TEST_OBJS) $(SUPPORT_OBJS): private ASSERT_FLAGS :=
$(TEST_OBJS) $(SUPPORT_OBJS): private PKG_CFLAGS = $(call pkg_cflags,$(TEST_PKGS))
$(TEST_BINS): private PKG_LIBS = $(call pkg_libs,$(TEST_PKGS))
TEST_LIBS := $(COORD_LIB) $(WORKER_LIB) $(EXTENGINE_LIB) $(CONTRACTS_LIB)
$(TEST_BINS): private LOCAL_LIBS = $(TEST_LIBS)
$(TEST_BINS): $(BINDIR)/tests/%: $(BUILDDIR)/tests/%.o $(SUPPORT_OBJS) $(TEST_LIBS) $(LIB)
	@mkdir -p $(@D)
	$(LINK)

# Test tools: tests/tools/NAME.c -> $(BINDIR)/tests/tools/NAME, programs that the shell
# tests drive (not run as tests themselves), with the coordinator's modules and ZeroMQ.
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_OBJS := $(TOOL_SRCS:%.c=$(BUILDDIR)/%.o)
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BINDIR)/tests/tools/%)

$(TOOL_OBJS): private ASSERT_FLAGS :=
$(TOOL_OBJS): private PKG_CFLAGS = $(call pkg_cflags,$(COORD_PKGS))
$(TOOL_BINS): private PKG_LIBS = $(call pkg_libs,$(COORD_PKGS))
$(TOOL_BINS): private LOCAL_LIBS = $(COORD_LIB) $(EXTENGINE_LIB) $(CONTRACTS_LIB)
$(TOOL_BINS): $(BINDIR)/tests/tools/%: $(BUILDDIR)/tests/tools/%.o $(COORD_LIB) $(EXTENGINE_LIB) \
              $(CONTRACTS_LIB) $(LIB)
	@mkdir -p $(@D)
	$(LINK)

# test_tune and test_tune_* also link the tuner's modules (libtune.a, no MPI).
TUNE_TEST_BINS := $(filter $(BINDIR)/tests/test_tune%,$(TEST_BINS))
$(TUNE_TEST_BINS): $(TUNE_LIB)
$(TUNE_TEST_BINS): private LOCAL_LIBS = $(TUNE_LIB) $(TEST_LIBS)

# test_nnue also links the NNUE kernels built twice more, portable and (on x86-64)
# AVX2, whatever ARCH is, to compare them; the AVX2 ones run only where the CPU has it.
NNUE_KERNEL_VARIANTS := portable
ifeq ($(shell uname -m),x86_64)
NNUE_KERNEL_VARIANTS += avx2
endif
NNUE_KERNEL_TEST_OBJS := $(NNUE_KERNEL_VARIANTS:%=$(BUILDDIR)/tests/nnue_kernel_%.o)
$(BUILDDIR)/tests/nnue_kernel_portable.o: private PKG_CFLAGS = -DNNUE_PORTABLE \
                                          -DNNUE_KERNEL_SUFFIX=portable
$(BUILDDIR)/tests/nnue_kernel_avx2.o: private PKG_CFLAGS = -mavx2 -DNNUE_KERNEL_SUFFIX=avx2
$(NNUE_KERNEL_TEST_OBJS): $(BUILDDIR)/tests/nnue_kernel_%.o: engine/nnue_kernel.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(COMPILE)
$(BINDIR)/tests/test_nnue: $(NNUE_KERNEL_TEST_OBJS)

ALL_OBJS := $(sort $(ENGINE_OBJS) $(CONTRACTS_OBJS) $(EXTENGINE_OBJS) $(COORD_OBJS) $(PROGRAM_OBJS) $(TEST_OBJS) \
            $(SUPPORT_OBJS) $(TOOL_OBJS) $(TUNE_TRACE_OBJ) $(NNUE_KERNEL_TEST_OBJS))

# Every object is rebuilt when the flags change.  Only the files that mention
# CHUHE_VERSION are rebuilt when the version changes.
FLAGS_STAMP := $(BUILDDIR)/flags
FLAGS_TEXT := $(CC) $(BASE_CPPFLAGS) $(ASSERT_FLAGS) $(BASE_CFLAGS) $(LDFLAGS) $(LDLIBS)
VERSION_STAMP := $(BUILDDIR)/version
VERSION_SRCS := $(shell grep -l CHUHE_VERSION $(ENGINE_SRCS) $(sort $(foreach p,$(PROGRAMS),$(wildcard $($(p)_DIR)/*.c))) /dev/null)

$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(FLAGS_TEXT)' | cmp -s - $@ || echo '$(FLAGS_TEXT)' > $@

$(VERSION_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

$(VERSION_SRCS:%.c=$(BUILDDIR)/%.o): $(VERSION_STAMP)

$(BUILDDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(COMPILE)

# A text file compiled in as one C string literal, a line a piece.
EMBED_TEXT = sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $< > $@

# The built-in weights: engine/default.weights compiled in as a string.
$(GENDIR)/default_weights.inc: engine/default.weights
	@mkdir -p $(@D)
	$(EMBED_TEXT)

$(BUILDDIR)/engine/weights.o: $(GENDIR)/default_weights.inc

# The built-in network: engine/default.nnue assembled into nnue_default.o (.incbin).
$(BUILDDIR)/engine/nnue_default.o: engine/default.nnue

# The coordinator's live page: coordinator/coord_page.html compiled in the same way.
$(GENDIR)/coord_page.inc: coordinator/coord_page.html
	@mkdir -p $(@D)
	$(EMBED_TEXT)

$(BUILDDIR)/coordinator/coord_http.o: $(GENDIR)/coord_page.inc

$(LIB): $(ENGINE_OBJS)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

-include $(ALL_OBJS:.o=.d)

# Fuzzing: libFuzzer harnesses tests/fuzz/NAME.c -> build/fuzz/fuzz-NAME, built with clang,
# ASan, UBSan and the coverage instrumentation of -fsanitize=fuzzer-no-link on the
# project's own code. Objects live in build/fuzz/obj/, apart from the gcc builds.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SMOKE_TIME ?= 20
FUZZ_DIR := build/fuzz
FUZZ_NAMES := $(sort $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/*.c)))
FUZZ_BINS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz-%)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 -pthread $(ARCH_CFLAGS) $(WARNINGS) -O1 -g -fno-omit-frame-pointer \
               -DCHUHE_DEBUG $(FUZZ_SAN)
FUZZ_CPPFLAGS = -I. -Iengine -I$(GENDIR) -DCHUHE_VERSION=\"fuzz\" $(call pkg_cflags,hdf5-serial)
FUZZ_LIB_SRCS := $(ENGINE_SRCS) uci/uci.c contracts/protocol.c contracts/runcols.c \
                 contracts/runfence.c contracts/runfile.c contracts/runhandle.c \
                 contracts/runfile_spsa.c contracts/runload.c contracts/runread.c \
                 contracts/runlock.c contracts/runfile_inputs.c contracts/runheader.c \
                 tests/support/runcheck.c \
                 contracts/outpath.c
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_LIB := $(FUZZ_DIR)/libchuhe-fuzz.a
FUZZ_OBJS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/obj/tests/fuzz/%.o)
FUZZ_STAMP := $(FUZZ_DIR)/flags
FUZZ_FLAGS_TEXT := $(FUZZ_CC) $(FUZZ_CFLAGS)

$(FUZZ_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(FUZZ_FLAGS_TEXT)' | cmp -s - $@ || echo '$(FUZZ_FLAGS_TEXT)' > $@

$(FUZZ_DIR)/obj/engine/weights.o: $(GENDIR)/default_weights.inc
$(FUZZ_DIR)/obj/engine/nnue_default.o: engine/default.nnue

$(FUZZ_LIB_OBJS): $(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_OBJS): $(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BINS): $(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/obj/tests/fuzz/%.o $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(call pkg_libs,hdf5-serial) -lm

-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d)

FORMAT_DIRS := engine contracts extengine uci tests worker coordinator tuning
FORMAT_FILES := $(wildcard $(foreach d,$(FORMAT_DIRS),$(d)/*.[ch] $(d)/*/*.[ch]))

.DEFAULT_GOAL := all
.PHONY: all check test check-san check-debug check-tsan bench run format format-check deps clean help FORCE \
        fuzz fuzz-build fuzz-smoke fuzz-merge
.DELETE_ON_ERROR:
.SUFFIXES:

all: $(LIB) $(PROGRAM_BINS)

check: all $(TEST_BINS) $(TOOL_BINS)
	$(TEST_ENV) bash tests/run $(BINDIR)

test: check

check-san:
	@$(MAKE) --no-print-directory MODE=san check

check-debug:
	@$(MAKE) --no-print-directory MODE=debug check

# The threaded tests alone under ThreadSanitizer (MODE=tsan, binaries in bin/tsan/):
# the search's threads, pondering and stop, and GUI-style sessions with 1 and 2 threads.
TSAN_TESTS := test_threads
TSAN_SHELL_TESTS := tests/gui_session.sh
check-tsan:
	@$(MAKE) --no-print-directory MODE=tsan bin/tsan/chuhe-engine $(TSAN_TESTS:%=bin/tsan/tests/%)
	TSAN_OPTIONS=$${TSAN_OPTIONS:-halt_on_error=1} bash -c 'set -e; \
	    for t in $(TSAN_TESTS); do echo "# $$t"; bin/tsan/tests/$$t; done; \
	    for t in $(TSAN_SHELL_TESTS); do echo "# $$t"; $$t bin/tsan; done'

bench: all $(BINDIR)/tests/tools/ingest_load
	scripts/bench-perft $(BINDIR)
	$(BINDIR)/chuhe-engine bench
	scripts/bench-search $(BINDIR)
	scripts/bench-search --threads 2 $(BINDIR)
	scripts/bench-mates $(BINDIR)
	$(BINDIR)/chuhe-tune --bench
	$(BINDIR)/chuhe-train --bench
	scripts/bench-train-ranks --bindir $(BINDIR)
	scripts/bench-scaling --bindir $(BINDIR)
	scripts/bench-ingest --bindir $(BINDIR)

run: all
	BINDIR=$(BINDIR) scripts/chuhe-run $(ARGS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	bash tests/fuzz/run --time $(FUZZ_TIME) $(FUZZ_NAMES)

fuzz-smoke: fuzz-build
	bash tests/fuzz/run --smoke --time $(FUZZ_SMOKE_TIME) $(FUZZ_NAMES)

fuzz-merge: fuzz-build
	bash tests/fuzz/run --merge $(FUZZ_NAMES)

format:
	$(if $(FORMAT_FILES),clang-format -i $(FORMAT_FILES))

format-check:
	$(if $(FORMAT_FILES),clang-format --dry-run --Werror $(FORMAT_FILES))

deps:
	bash scripts/install-deps

clean:
	rm -rf build bin

help:
	@echo 'Targets (MODE=release|debug|san|tsan, default release; WERROR=0 turns off -Werror):'
	@echo '  all           build build/$$MODE/libchuhe.a and the programs in $(BINDIR)/ (default)'
	@echo '  check         build and run every test in tests/ (alias: test)'
	@echo '  check-san     check with AddressSanitizer and UBSan (MODE=san, binaries in bin/san/)'
	@echo '  check-debug   check with -O1 and CHUHE_DEBUG (MODE=debug, binaries in bin/debug/)'
	@echo '  check-tsan    the threaded tests under ThreadSanitizer (MODE=tsan, binaries in bin/tsan/)'
	@echo '  bench         perft and search speed and mates found (scripts/bench-mates), side by side with'
	@echo '                Fairy-Stockfish; tuner and trainer speed (1 and 2 ranks); self-play scaling; what one coordinator stores'
	@echo '                (scripts/bench-ingest)'
	@echo '  fuzz          build the libFuzzer harnesses (clang) and run each for FUZZ_TIME s (default 60)'
	@echo '  fuzz-smoke    replay tests/fuzz/regress, run each harness FUZZ_SMOKE_TIME s (default 20) (CI)'
	@echo '  fuzz-merge    minimize the corpora grown by make fuzz into tests/fuzz/corpus/'
	@echo '  run           the default self-play job: scripts/chuhe-run (extra arguments: ARGS=...)'
	@echo '  format        clang-format -i every .c and .h file'
	@echo '  format-check  fail if any .c or .h file is not clang-formatted'
	@echo '  deps          install the Debian packages the build and tests need'
	@echo '  clean         remove build/ and bin/'
	@echo '  help          show this list'
