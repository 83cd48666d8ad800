# texfdtd - build, test, demo.  See README.md.
#
#   make            bin/texfdtd
#   make demo       install missing Debian packages (as root), build, run the demo
#   make test       install missing packages, build, run the Criterion suites (CI)
#   make test-gpu   the same suites with the GPU engines required (device machine)
#   make test-asan  the suites under AddressSanitizer + UBSan, built in build-asan/
#   make bench-cpu  bench/cpu.sh
#   make cuda       the same as make, but fails if nvcc is missing
#   make install    PREFIX=/usr/local: command, library (libtexfdtd.so, texfdtd.h,
#                   texfdtd.pc), shaders, scenes, man page
#   make docs       the tutorial's figures (docs/figures.sh)
#   make web        serve the web page (web/) on http://127.0.0.1:$(WEB_PORT)/web/
#   make test-web   the page in headless Chromium against the cpu engine (tests/web/)
#   mpirun -np 2 bin/texfdtd run SCENE   a 3D scene split over 2 ranks (docs/mpi.md)
#
# Numeric code is built with -ffp-contract=off: no a*b+c is fused into a
# multiply-add, so the CPU engine rounds exactly where the shaders (declared
# `precise`) round and the float32 fields can be bit-identical.  Never add
# -ffast-math here.

CC      ?= cc
# Objects, library and test binaries go to $(BUILD), the command to $(BIN)
# (both relative to this folder); make test-asan uses build-asan/.
BUILD   ?= build
BIN     ?= bin
# `make demo` and `make test` build with one job a core (JOBS=1: one job)
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
# Debian's python3 (its python3-numpy, python3-h5py, python3-pytest), not a
# python3 earlier on PATH (pyenv and the like)
PYTHON  ?= /usr/bin/python3
PKGS    := inih hdf5-serial libpng
GLPKGS  := egl glew opengl
OPT     ?= -O3
CFLAGS  ?= $(OPT) -g
CFLAGS  += -std=c11 -Wall -Wextra -ffp-contract=off -fno-fast-math -fopenmp -I.
# Every object also goes into the shared library libtexfdtd.so: position
# independent, and hidden unless exported by core/texfdtd.h (TF_API).  The
# CPU engine runs as fast so (docs/api.md); PIC= leaves it out (then only
# the command and the static library build).
PIC     ?= -fPIC -fvisibility=hidden
CFLAGS  += $(PIC)
CFLAGS  += $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# Compile and link flags of a sanitized build (make test-asan sets them).
SANITIZE ?=
ifneq ($(SANITIZE),)
CFLAGS  += $(SANITIZE)
endif
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -fopenmp

GL_SRC  := $(wildcard gl/*.c)
ifneq ($(GL_SRC),)
CFLAGS  += -DTEXFDTD_HAVE_GL $(shell pkg-config --cflags $(GLPKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(GLPKGS) 2>/dev/null)
endif

# The 3D CPU engine, once cpu/cpu3d.c exists.
ifneq ($(wildcard cpu/cpu3d.c),)
CFLAGS  += -DTEXFDTD_HAVE_CPU3D
endif

# MPI (OpenMPI from Debian: libopenmpi-dev, openmpi-bin) only where pkg-config
# finds ompi-c: `mpirun -np P bin/texfdtd run SCENE` splits 3D grids over P
# ranks (core/decomp.c, docs/mpi.md).  Without it texfdtd builds and runs as
# one process, exactly as before.
# MPI=0 builds without it (the GPU machine's image has no OpenMPI).
MPI     ?= auto
ifneq ($(MPI),0)
ifneq ($(shell pkg-config --exists ompi-c 2>/dev/null && echo yes),)
CFLAGS  += -DTEXFDTD_HAVE_MPI $(shell pkg-config --cflags ompi-c)
LDLIBS  += $(shell pkg-config --libs ompi-c)
endif
endif

# CUDA (cuda/*.cu) only where nvcc and the static CUDA runtime are found;
# the runtime is linked statically, so the binaries need only the driver
# (libcuda) at run time.  The runtime's folder is the one nvcc itself links
# from (its --dryrun LIBRARIES line), which holds wherever the toolkit is
# installed (lib, lib64 or targets/<arch>/lib, nvcc reached through a link).
NVCC    ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_SRC := $(wildcard cuda/*.cu)
ifneq ($(and $(NVCC),$(CUDA_SRC)),)
CUDA_LIBDIRS := $(shell $(NVCC) --dryrun -o /dev/null none.cu 2>&1 | \
                  sed -n 's/^\#\$$ LIBRARIES=//p' | tr -d '"' | sed 's/-L//g')
CUDA_LIBDIRS += $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))/lib64 $(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))/lib
CUDART_DIR := $(firstword $(foreach d,$(CUDA_LIBDIRS),$(if $(wildcard $(d)/libcudart_static.a),$(d))))
ifeq ($(CUDART_DIR),)
$(info note: $(NVCC) found but not libcudart_static.a (looked in $(CUDA_LIBDIRS)); building without the CUDA engines)
else
# Machine code for sm_90 (H100, H200: the GPUs measured), and PTX for
# compute_80, which the driver compiles at first use on any other GPU from
# the A100 (sm_80) on, newer ones (sm_100, sm_120) included; it caches the
# result (~/.nv/ComputeCache).  Machine code for sm_80 as well made the
# build's longest step a third longer (cuda3d_tb.cu: 311 s against 232 on
# one core), and
# a binary with machine code only ran on no GPU newer than the H100.
# The PTX path gives the same bits (tests/test_cuda.c with CUDA_FORCE_PTX_JIT=1
# on the H200, docs/accuracy.md) but its compile is slow: there about 12 s a
# process for the 2D engine and 58 s for the 3D one, each time (the driver's
# cache did not spare a second run: docs/cuda.md).  So a build on a machine
# with another GPU (nvidia-smi's compute_cap, where nvcc knows it) also
# gets that GPU's machine code: built where it runs, texfdtd never waits
# for the JIT.  CUDA_HOST_SM= (empty) leaves it out.  Asked once a make
# (:=), not at each use of the variable.
NVCCFLAGS ?= -O3 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80
ifeq ($(origin CUDA_HOST_SM),undefined)
CUDA_HOST_SM := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
endif
ifneq ($(filter-out 90,$(CUDA_HOST_SM)),)
ifneq ($(filter sm_$(CUDA_HOST_SM),$(shell $(NVCC) --list-gpu-code 2>/dev/null)),)
NVCCFLAGS += -gencode arch=compute_$(CUDA_HOST_SM),code=sm_$(CUDA_HOST_SM)
endif
endif
NVCCFLAGS += -std=c++17 -I. -Xcompiler -Wall,-Wextra,-ffp-contract=off,-fPIC,-fvisibility=hidden
CFLAGS  += -DTEXFDTD_HAVE_CUDA
LDLIBS  += -L$(CUDART_DIR) -lcudart_static -ldl -lrt -lpthread -lstdc++
CUDA_OBJ := $(CUDA_SRC:%.cu=$(BUILD)/%.o)
# NCCL for the 3D CUDA engine's halo exchange under mpirun, where nccl.h is
# found beside the toolkit (or in /usr/include).  Only the header is used at
# build time: libnccl.so.2 is loaded at run time (dlopen, from
# LD_LIBRARY_PATH), so the binary starts without it and then exchanges
# halos through the host.  NCCL=0 leaves it out.
NCCL    ?= auto
ifneq ($(NCCL),0)
NCCL_INC := $(firstword $(foreach d,$(patsubst %/bin/nvcc,%,$(realpath $(NVCC)))/include /usr/include,$(if $(wildcard $(d)/nccl.h),$(d))))
ifneq ($(NCCL_INC),)
NVCCFLAGS += -DTEXFDTD_HAVE_NCCL -I$(NCCL_INC)
endif
endif
endif
endif

# Where `make install` puts things; an installed texfdtd finds its shaders there.
PREFIX  ?= /usr/local
CFLAGS  += -DTEXFDTD_SHADER_DIR_DEFAULT=$(PREFIX)/share/texfdtd/shaders

# The commit, only in the files that write it (the CLI's version line, the
# library's version string, the outputs' and checkpoints' attributes,
# compare's report), with a stamp of its own: a commit rebuilds those five
# objects, not every object (the CUDA ones take minutes) as when it was
# part of CFLAGS and so of cflags.
GIT_HASH := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
HASH_OBJ := $(BUILD)/core/cli.o $(BUILD)/core/output.o $(BUILD)/core/checkpoint.o $(BUILD)/core/api.o \
            $(BUILD)/compare/compare.o
$(HASH_OBJ): private CFLAGS += -DTEXFDTD_GIT_HASH='"$(GIT_HASH)"'
$(HASH_OBJ): $(BUILD)/githash

LIB_SRC := $(filter-out core/main.c,$(wildcard core/*.c)) $(wildcard cpu/*.c) $(GL_SRC) \
           $(wildcard compare/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CUDA_OBJ)
# The shared library: libtexfdtd.so.MAJOR.MINOR.PATCH, soname
# libtexfdtd.so.MAJOR, the version from core/texfdtd.h; only the tf_*
# functions of core/texfdtd.h are exported (core/texfdtd.map).
TF_VERSION_PART = $(shell sed -n 's/^\#define TEXFDTD_VERSION_$(1) \([0-9]*\).*/\1/p' core/texfdtd.h)
SO_MAJOR := $(call TF_VERSION_PART,MAJOR)
SO_VERSION := $(SO_MAJOR).$(call TF_VERSION_PART,MINOR).$(call TF_VERSION_PART,PATCH)
SO_NAME  := libtexfdtd.so.$(SO_MAJOR)
SO_FILE  := $(BUILD)/libtexfdtd.so.$(SO_VERSION)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)


.PHONY: api-doc
.PHONY: all deps demo docs fuzz test test-web web test-gpu test-asan bench-cpu bench-cpml bench-cuda cuda install uninstall clean FORCE
all: $(BIN)/texfdtd $(BUILD)/libtexfdtd.so

# Objects depend on the flags: when an engine appears (cpu/cpu3d.c, cuda/,
# gl/) the -DTEXFDTD_HAVE_* flags change and everything is rebuilt.
$(BUILD)/cflags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(CC) $(CFLAGS) $(NVCC) $(NVCCFLAGS)' | cmp -s - $@ || echo '$(CC) $(CFLAGS) $(NVCC) $(NVCCFLAGS)' > $@
$(BUILD)/githash: FORCE
	@mkdir -p $(BUILD)
	@echo '$(GIT_HASH)' | cmp -s - $@ || echo '$(GIT_HASH)' > $@

$(BUILD)/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/cuda/%.o: cuda/%.cu $(wildcard cuda/*.h cuda/*.cuh) core/engine.h core/model.h core/scene.h core/yee.h core/incident.h $(BUILD)/cflags
	@mkdir -p $(BUILD)/cuda
	$(NVCC) $(NVCCFLAGS) -c -o $@ $<

$(BUILD)/libtexfdtd.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SO_FILE): $(LIB_OBJ) core/texfdtd.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=core/texfdtd.map \
	    -Wl,--no-undefined -o $@ $(LIB_OBJ) $(LDLIBS)

$(BUILD)/libtexfdtd.so: $(SO_FILE)
	ln -sf libtexfdtd.so.$(SO_VERSION) $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $@

$(BIN)/texfdtd: $(BUILD)/core/main.o $(BUILD)/libtexfdtd.a
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libtexfdtd.a tests/helpers.h bench/reflection.h
	@mkdir -p $(BUILD)/tests
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libtexfdtd.a $(LDLIBS) $(shell pkg-config --libs criterion 2>/dev/null)

deps:
	@scripts/deps.sh

demo: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all
	./$(BIN)/texfdtd run scenes/takada_square.ini --out out/demo --force

# The scene parser under libFuzzer with AddressSanitizer and UBSan (clang):
# `make fuzz FUZZ_SECONDS=1800` for a long run; `make test` runs 60 s.
# Crashes land in $(BUILD)/fuzz/ as crash-*; keep them in tests/fuzz/corpus.
FUZZ_SECONDS ?= 60
FUZZ_SRC := core/scene.c core/model.c core/paint.c core/smooth3d.c core/material.c core/matmap.c core/util.c core/monitor.c \
            core/farfield3d.c core/decomp.c \
            core/h5util.c
$(BUILD)/fuzz/scene_fuzz: tests/fuzz/scene_fuzz.c $(FUZZ_SRC) core/scene.h core/model.h core/util.h
	@mkdir -p $(BUILD)/fuzz
	clang -std=c11 -g -O1 -I. -ffp-contract=off -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=undefined $(shell pkg-config --cflags inih hdf5-serial libpng) -o $@ \
	    tests/fuzz/scene_fuzz.c $(FUZZ_SRC) $(shell pkg-config --libs inih hdf5-serial libpng) -lm

fuzz: $(BUILD)/fuzz/scene_fuzz
	@mkdir -p $(BUILD)/fuzz/corpus
	@cd $(BUILD)/fuzz && ./scene_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -print_final_stats=1 corpus $(CURDIR)/tests/fuzz/corpus >fuzz.log 2>&1; rc=$$?; \
	    grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)|ERROR|SUMMARY|crash-' fuzz.log; \
	    [ $$rc -eq 0 ] || { tail -40 fuzz.log; echo "fuzz: the scene parser failed ($(BUILD)/fuzz/fuzz.log)"; }; exit $$rc

# The one-file teaching example: nothing of the project's, on purpose.
$(BUILD)/examples/rtt_fdtd: examples/rtt_fdtd.c
	@mkdir -p $(BUILD)/examples
	$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $< $(shell pkg-config --cflags --libs egl opengl libpng) -lm $(SANITIZE)

# Each suite is one Criterion binary; run from the repository root.  Two
# tests run at once (--jobs 2), each engine on one OpenMP thread unless
# OMP_NUM_THREADS says otherwise: two tests of two threads each on a 2-core
# machine spin in libgomp's barriers (a row's barrier per row) and ran the
# TE material suite in 119 s instead of 2 s.  Tests that need several
# threads ask for them (engine_options.threads).
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TEST_BIN) $(BUILD)/examples/rtt_fdtd
	@ok=0; bad=0; \
	for t in $(TEST_BIN); do echo "== $$t"; s=$$(date +%s); \
	  if OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $$t --jobs 2; then ok=$$((ok+1)); else bad=$$((bad+1)); fi; \
	  echo "== $$t: $$(( $$(date +%s) - s )) s"; done; \
	echo "== examples/rtt_fdtd"; \
	if $(BUILD)/examples/rtt_fdtd $(BUILD)/examples/rtt_fdtd.png; then ok=$$((ok+1)); else bad=$$((bad+1)); fi; \
	echo "== fuzz: the scene parser, $(FUZZ_SECONDS) s"; \
	if $(MAKE) --no-print-directory fuzz; then ok=$$((ok+1)); else bad=$$((bad+1)); fi; \
	echo "== python: pytest python/tests"; s=$$(date +%s); \
	if TEXFDTD_LIB=$(abspath $(SO_FILE)) TEXFDTD_BIN=$(abspath $(BIN))/texfdtd OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} \
	  $(PYTHON) -m pytest -q -p no:cacheprovider python/tests; then ok=$$((ok+1)); else bad=$$((bad+1)); fi; \
	echo "== python: $$(( $$(date +%s) - s )) s"; \
	echo "== web: the page in headless Chromium"; s=$$(date +%s); \
	tests/web/check.sh $(BIN)/texfdtd; rc=$$?; \
	if [ $$rc -eq 0 ]; then ok=$$((ok+1)); elif [ $$rc -ne 77 ]; then bad=$$((bad+1)); fi; \
	echo "== web: $$(( $$(date +%s) - s )) s"; \
	echo "suites: $$ok passed, $$bad failed"; [ $$bad -eq 0 ]

# The web page in headless Chromium against the cpu engine (tests/web/run.mjs;
# exit status 77, a skip, without chromium or node).
test-web: all
	@tests/web/check.sh $(BIN)/texfdtd; rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 77 ]

test-gpu: deps
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TEST_BIN)
	@fail=0; for t in $(TEST_BIN); do echo "== $$t"; TEXFDTD_REQUIRE_GPU=1 $$t --jobs 1 || fail=1; done; exit $$fail

# The suites, the command they spawn (TEXFDTD_BIN) and the GL example under
# AddressSanitizer + UBSan (gcc, -O1), built apart in build-asan/ so that the
# normal build is untouched.  No CUDA (NVCC=): nvcc objects cannot take the
# sanitizers.  Any report fails the suite: ASan and LeakSanitizer write theirs
# to build-asan/log/SUITE/asan.PID (Criterion passes a worker that fails only
# at exit, and the tests capture the command's stderr); UBSan stops the
# process and is also looked for in the suite's output.  Leaks in the system
# libraries named in tests/lsan.supp are not reported.  Mesa's llvmpipe
# driver is preloaded so that eglTerminate's dlclose cannot unmap it: LSan
# would then miss the pointers in its globals and report the blocks they hold
# as leaks of an "<unknown module>" (docs/reliability.md).  The fuzz target
# is not run again: it is built with the same sanitizers.
# test_mpi runs without leak detection: OpenMPI 4.1's PMIx, OPAL and MCA
# plugins keep start-up strings to the end and unload before LeakSanitizer
# looks, so their blocks come out as leaks of "<unknown module>" that no
# suppression can name.  Memory errors and UBSan stay on there, and the same
# engine and output code is leak-checked by the single-process suites.
ASAN_DIR   := build-asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_TESTS := $(TEST_SRC:tests/%.c=$(ASAN_DIR)/tests/%)
ASAN_LOG   := $(CURDIR)/$(ASAN_DIR)/log
ASAN_OPTS  := detect_leaks=1:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
MESA_SWRAST := $(firstword $(wildcard /usr/lib/*/dri/swrast_dri.so /usr/lib*/dri/swrast_dri.so))
ifneq ($(MESA_SWRAST),)
ASAN_OPTS  := $(ASAN_OPTS):verify_asan_link_order=0
ASAN_PRELOAD := LD_PRELOAD=$(MESA_SWRAST)
endif
ASAN_ENV   := $(ASAN_PRELOAD) LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
              UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
              TEXFDTD_BIN=./$(ASAN_DIR)/bin/texfdtd
test-asan: deps
	@$(MAKE) --no-print-directory -j$(JOBS) BUILD=$(ASAN_DIR) BIN=$(ASAN_DIR)/bin NVCC= OPT=-O1 \
	    SANITIZE='$(ASAN_FLAGS)' all $(ASAN_TESTS) $(ASAN_DIR)/examples/rtt_fdtd
	@ok=0; bad=0; rm -rf $(ASAN_LOG); \
	for t in $(ASAN_TESTS) $(ASAN_DIR)/examples/rtt_fdtd; do \
	    n=$${t##*/}; d=$(ASAN_LOG)/$$n; mkdir -p $$d; echo "== $$t"; \
	    if [ $$n = rtt_fdtd ]; then set -- $$t.png; else set -- --jobs 2; fi; \
	    lk=; [ $$n != test_mpi ] || lk=:detect_leaks=0; \
	    { $(ASAN_ENV) ASAN_OPTIONS=$(ASAN_OPTS)$$lk:log_path=$$d/asan $$t "$$@"; echo $$? >$$d/rc; } 2>&1 | tee $$d/output; \
	    if [ "$$(cat $$d/rc)" = 0 ] && ! ls $$d/asan.* >/dev/null 2>&1 && ! grep -q 'runtime error:' $$d/output; then \
	        ok=$$((ok+1)); \
	    else \
	        bad=$$((bad+1)); cat $$d/asan.* 2>/dev/null; echo "$$n: failed (exit $$(cat $$d/rc); see $$d)"; \
	    fi; \
	done; \
	echo "asan suites: $$ok passed, $$bad failed"; [ $$bad -eq 0 ]

bench-cpu: all
	bench/cpu.sh

$(BUILD)/bench/%: bench/%.c $(BUILD)/libtexfdtd.a bench/reflection.h bench/common.h
	@mkdir -p $(BUILD)/bench
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libtexfdtd.a $(LDLIBS)
# gl_bench includes gl_bench texbuf's driver (issue 14, item 1)
$(BUILD)/bench/gl_bench: bench/gl_texbuf.h

bench-cpml: $(BUILD)/bench/cpml_reflection
	$(BUILD)/bench/cpml_reflection

# on the GPU machine: bench/cuda.sh (see docs/performance-cuda.md)
bench-cuda: all $(BUILD)/bench/cuda_bench

# Ask for the CUDA engines explicitly: fails clearly without nvcc.
cuda:
	@if [ -z "$(CUDA_OBJ)" ]; then echo "make cuda: nvcc or its static runtime libcudart_static.a not found (install the CUDA toolkit, or set NVCC=/path/to/nvcc)" >&2; exit 1; fi
	@$(MAKE) --no-print-directory all

# The figures of docs/tutorial.md, made by the project itself.
docs: all
	docs/figures.sh

# The C API's reference page, from the comments of core/texfdtd.h
api-doc:
	$(PYTHON) scripts/api_doc.py core/texfdtd.h > docs/api-reference.md

# The web page (web/index.html): the repository root served on localhost
# only, so that the page fetches core/yee.h, shaders/ and scenes/ as they are.
WEB_PORT ?= 8000
web:
	@echo "texfdtd web page: http://127.0.0.1:$(WEB_PORT)/web/  (Ctrl-C stops the server)"
	@python3 -m http.server $(WEB_PORT) --bind 127.0.0.1

# make install [PREFIX=/usr/local] [DESTDIR=...]
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/texfdtd/shaders \
	    $(DESTDIR)$(PREFIX)/share/texfdtd/scenes $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN)/texfdtd $(DESTDIR)$(PREFIX)/bin/
	install -m 644 shaders/* $(DESTDIR)$(PREFIX)/share/texfdtd/shaders/
	# the arithmetic the shaders share with the C and CUDA engines (gl/shader.c finds it here)
	install -m 644 core/yee.h core/incident.h $(DESTDIR)$(PREFIX)/share/texfdtd/shaders/
	install -m 644 scenes/*.ini $(DESTDIR)$(PREFIX)/share/texfdtd/scenes/
	install -m 644 docs/texfdtd.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	# the C library (docs/api.md): only the shared one, so texfdtd.pc needs no
	# Requires.private: a program links -ltexfdtd alone
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 $(SO_FILE) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libtexfdtd.so.$(SO_VERSION) $(DESTDIR)$(PREFIX)/lib/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(PREFIX)/lib/libtexfdtd.so
	install -m 644 core/texfdtd.h $(DESTDIR)$(PREFIX)/include/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	    'Name: texfdtd' 'Description: FDTD electromagnetics on CPU and GPU (C API)' \
	    'Version: $(SO_VERSION)' 'Libs: -L$${libdir} -ltexfdtd' 'Cflags: -I$${includedir}' \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/texfdtd.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/texfdtd $(DESTDIR)$(PREFIX)/share/man/man1/texfdtd.1
	rm -f $(DESTDIR)$(PREFIX)/lib/libtexfdtd.so* $(DESTDIR)$(PREFIX)/include/texfdtd.h \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/texfdtd.pc
	rm -rf $(DESTDIR)$(PREFIX)/share/texfdtd

clean:
	rm -rf $(BUILD) $(BIN) build-asan build-dev build-devmpi

-include $(LIB_OBJ:.o=.d) $(BUILD)/core/main.d $(TEST_BIN:=.d)
