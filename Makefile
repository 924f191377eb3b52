# Larder: build the C library, run every test, run the demo, run the benchmarks.
# `make test` and `make demo` install LMDB's development files when they are missing.

CC      ?= cc
CFLAGS  ?= -O2 -g
SWIFT   ?= $(shell command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)
PREFIX  ?= /usr/local

BUILD   := build
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
LIB_CFLAGS := $(CFLAGS) -std=c11 -D_GNU_SOURCE $(WARN) -fPIC -Iinclude -ICCore \
              $(shell pkg-config --cflags lmdb 2>/dev/null)
LMDB_LIBS   = $(shell pkg-config --libs lmdb 2>/dev/null || echo -llmdb)
SANITIZE    := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

CORE_SRC := $(wildcard CCore/*/*.c)
CORE_HDR := $(wildcard CCore/*/*.h) include/larder.h
CORE_OBJ := $(CORE_SRC:CCore/%.c=$(BUILD)/obj/%.o)
CORE_ASAN_OBJ := $(CORE_SRC:CCore/%.c=$(BUILD)/asan/%.o)
CTEST_SRC := $(wildcard Tests/c/*.c)

.PHONY: all lib deps test test-layers test-c test-ffi test-swift test-swift6 test-header test-memory test-fuzz fuzz \
        fuzz-file fuzz-query fuzz-build crash test-crash demo demo-c demo-swift bench clean install

all: lib

lib: $(BUILD)/liblarder.so $(BUILD)/liblarder.so.0 $(BUILD)/liblarder.a $(BUILD)/larder.pc

# Installs liblmdb-dev when pkg-config cannot find lmdb (a fresh Debian/Ubuntu machine).
deps:
	@build-aux/ensure-lmdb

$(BUILD)/obj/%.o: CCore/%.c $(CORE_HDR) | deps
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/asan/%.o: CCore/%.c $(CORE_HDR) | deps
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -O1 $(SANITIZE) -DLARDER_FAULT_INJECTION -c $< -o $@

$(BUILD)/liblarder.so: $(CORE_OBJ) build-aux/exports.map
	$(CC) -shared -Wl,-soname,liblarder.so.0 -Wl,--version-script=build-aux/exports.map \
	    -o $@ $(CORE_OBJ) $(LMDB_LIBS) -lpthread

# Programs linked against the library look for its soname.
$(BUILD)/liblarder.so.0: $(BUILD)/liblarder.so
	ln -sf liblarder.so $@

$(BUILD)/liblarder.a: $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $(CORE_OBJ)

$(BUILD)/larder.pc: build-aux/larder.pc.in Makefile
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(abspath $(BUILD))|g' -e 's|@INCLUDEDIR@|$(abspath include)|g' \
	    -e 's|@LIBDIR@|$(abspath $(BUILD))|g' $< > $@

# ---- tests ----

test: test-header test-layers test-c test-memory test-ffi test-fuzz test-crash test-swift test-swift6

test-header: | deps
	@for std in c99 c11; do \
	  echo "#include \"larder.h\"" | $(CC) -std=$$std -Wall -Wextra -Werror -pedantic -Iinclude -x c -fsyntax-only - || exit 1; done
	@echo "#include \"larder.h\"" | c++ -std=c++17 -Wall -Wextra -Werror -pedantic -Iinclude -x c++ -fsyntax-only -
	@echo "header: compiles alone as C99, C11 and C++17"

test-layers:
	@build-aux/check-layers

$(BUILD)/test_c: $(CTEST_SRC) Tests/c/test.h $(CORE_ASAN_OBJ)
	$(CC) $(CFLAGS) -O1 -std=c11 -D_GNU_SOURCE $(WARN) $(SANITIZE) -Iinclude -ICCore -o $@ $(CTEST_SRC) \
	    $(CORE_ASAN_OBJ) $(LMDB_LIBS) -lpthread

test-c: $(BUILD)/test_c
	rm -rf $(BUILD)/c-test-data && mkdir -p $(BUILD)/c-test-data
	$(BUILD)/test_c $(BUILD)/c-test-data

# Without sanitizers: they would distort the process's size.
$(BUILD)/large_write: Tests/memory/large_write.c $(BUILD)/liblarder.a
	$(CC) $(CFLAGS) -std=c11 $(WARN) -Iinclude -o $@ $< $(BUILD)/liblarder.a $(LMDB_LIBS) -lpthread

test-memory: $(BUILD)/large_write $(BUILD)/under_valgrind
	rm -f $(BUILD)/large-write.larder $(BUILD)/large-write.larder-lock
	$(BUILD)/large_write $(BUILD)/large-write.larder 1000000
	rm -f $(BUILD)/under-valgrind.larder $(BUILD)/under-valgrind.larder-lock
	$(VALGRIND) $(BUILD)/under_valgrind $(BUILD)/under-valgrind.larder

# memcheck: no invalid read or write, no use of undefined values, no definite leak.
VALGRIND := valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite

$(BUILD)/under_valgrind: Tests/memory/under_valgrind.c $(BUILD)/liblarder.a
	$(CC) $(CFLAGS) -std=c11 $(WARN) -Iinclude -o $@ $< $(BUILD)/liblarder.a $(LMDB_LIBS) -lpthread

# The kill -9 harness (Tests/crash/crash.c): `make crash` runs CRASH_CYCLES, `make test` a short run.
CRASH_CYCLES ?= 1000
CRASH_TEST_CYCLES := 100

$(BUILD)/crash: Tests/crash/crash.c $(BUILD)/liblarder.a
	$(CC) $(CFLAGS) -std=c11 $(WARN) -Iinclude -o $@ $< $(BUILD)/liblarder.a $(LMDB_LIBS) -lpthread

crash: $(BUILD)/crash
	@mkdir -p $(BUILD)/crash-data
	$(BUILD)/crash $(BUILD)/crash-data/crash.larder $(CRASH_CYCLES)

test-crash: $(BUILD)/crash
	@mkdir -p $(BUILD)/crash-data
	$(BUILD)/crash $(BUILD)/crash-data/test-crash.larder $(CRASH_TEST_CYCLES)

test-ffi: lib test-c
	python3 Tests/ffi/test_ffi.py $(BUILD)/liblarder.so $(BUILD)/c-test-data/shared.larder

test-swift: | deps
	$(SWIFT) test

# A client package in Swift 6 language mode with warnings as errors: Realm's actor and
# async patterns must compile without a diagnostic, and it runs them.
test-swift6: | deps
	$(SWIFT) build $(SWIFT_DEPENDENT) --package-path Tests/Swift6Client --scratch-path Tests/Swift6Client/.build
	Tests/Swift6Client/.build/debug/Swift6Client

# ---- fuzzing ----
# libFuzzer through Swift's clang. fuzz_api runs programs of API calls (Tests/fuzz/fuzz_api.c);
# fuzz_file opens garbage and damaged database files (Tests/fuzz/fuzz_file.c), and stays out of
# `make test`: open refuses truncated files, damaged header pages and table roots outside the
# file, but other damage inside B-tree pages (node offsets, child page numbers) still crashes
# or hangs inside LMDB. New inputs go to build/fuzz/<name>-corpus, crashes to build/fuzz/<name>-crash-*;
# a crash fails the target. FUZZ_EXTRA=-DFUZZ_SMALL_MAP also fuzzes map growth (see fuzz_api.c).

FUZZ_CC      ?= /opt/swift/usr/bin/clang
FUZZ_SECONDS ?= 600
FUZZ_TEST_SECONDS := 40
FUZZ_CFLAGS  := -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fuse-ld=lld -Iinclude -ICCore \
                $(shell pkg-config --cflags lmdb 2>/dev/null) $(FUZZ_EXTRA)
FUZZ_OPTIONS := -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_OPTIONS_fuzz_api := -max_len=4096
FUZZ_OPTIONS_fuzz_file := -max_len=65536
FUZZ_OPTIONS_fuzz_query := -max_len=2048 -dict=Tests/fuzz/fuzz_query.dict
FUZZ_OPTIONS_fuzz_build := -max_len=2048 -dict=Tests/fuzz/fuzz_query.dict
FUZZ_QUERY_TEST_SECONDS := 20

FUZZ_SUPPORT := Tests/fuzz/fuzz_support.c Tests/fuzz/fuzz_support.h

$(BUILD)/fuzz/%: Tests/fuzz/%.c $(FUZZ_SUPPORT) $(CORE_SRC) $(CORE_HDR) | deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< Tests/fuzz/fuzz_support.c $(CORE_SRC) $(LMDB_LIBS) -lpthread

# name, seconds: runs build/fuzz/<name> on its corpus and the committed seeds.
define run_fuzzer
	@mkdir -p $(BUILD)/fuzz/$(1)-corpus
	$(BUILD)/fuzz/$(1) $(FUZZ_OPTIONS) $(FUZZ_OPTIONS_$(1)) -max_total_time=$(2) -artifact_prefix=$(BUILD)/fuzz/$(1)- \
	    $(BUILD)/fuzz/$(1)-corpus Tests/fuzz/corpus/$(1)
endef

# The short run `make test` includes. fuzz_query parses query text (Tests/fuzz/fuzz_query.c);
# fuzz_build builds queries by calls (Tests/fuzz/fuzz_build.c).
test-fuzz: $(BUILD)/fuzz/fuzz_api $(BUILD)/fuzz/fuzz_query $(BUILD)/fuzz/fuzz_build
	$(call run_fuzzer,fuzz_api,$(FUZZ_TEST_SECONDS))
	$(call run_fuzzer,fuzz_query,$(FUZZ_QUERY_TEST_SECONDS))
	$(call run_fuzzer,fuzz_build,$(FUZZ_QUERY_TEST_SECONDS))

fuzz: $(BUILD)/fuzz/fuzz_api $(BUILD)/fuzz/fuzz_query $(BUILD)/fuzz/fuzz_build
	$(call run_fuzzer,fuzz_api,$(FUZZ_SECONDS))
	$(call run_fuzzer,fuzz_query,$(FUZZ_SECONDS))
	$(call run_fuzzer,fuzz_build,$(FUZZ_SECONDS))

fuzz-build: $(BUILD)/fuzz/fuzz_build
	$(call run_fuzzer,fuzz_build,$(FUZZ_SECONDS))

fuzz-query: $(BUILD)/fuzz/fuzz_query
	$(call run_fuzzer,fuzz_query,$(FUZZ_SECONDS))

fuzz-file: $(BUILD)/fuzz/fuzz_file
	$(call run_fuzzer,fuzz_file,$(FUZZ_SECONDS))

# ---- demo ----

demo: demo-c demo-swift

$(BUILD)/example_c: Examples/c/example.c lib
	$(CC) $(CFLAGS) -std=c99 -Wall -Wextra -Werror -o $@ $< \
	    $$(PKG_CONFIG_PATH=$(abspath $(BUILD)) pkg-config --cflags --libs larder) \
	    -Wl,-rpath,$(abspath $(BUILD))

demo-c: $(BUILD)/example_c
	rm -f $(BUILD)/example.larder $(BUILD)/example.larder-lock
	$(BUILD)/example_c $(BUILD)/example.larder

# The demo and the benchmark are packages that depend on Larder by path: SwiftPM's cached
# build plan keeps the dependency's old file list, so a source file added to Larder breaks
# their next build unless the plan is made again (--disable-build-manifest-caching).
SWIFT_DEPENDENT := --disable-build-manifest-caching

demo-swift: | deps
	$(SWIFT) run -c release $(SWIFT_DEPENDENT) --package-path Examples/swift LarderDemo $(abspath $(BUILD))/demo.larder

# ---- benchmarks ----

BENCH_SRC := $(wildcard Benchmarks/c/*.c)

# -ICCore: bench_changes.c turns the change log off in one environment to measure its cost.
$(BUILD)/bench_c: $(BENCH_SRC) Benchmarks/c/bench.h $(CORE_OBJ)
	$(CC) $(CFLAGS) -O2 -std=c11 -D_GNU_SOURCE $(WARN) -Iinclude -ICCore -o $@ $(BENCH_SRC) \
	    $(CORE_OBJ) $(LMDB_LIBS) -lpthread

# The C benchmark first; the Swift one reads its results to print ratios from the same run.
# `make bench BENCH_ONLY="queries embedded"` runs only the sections named (objects collections mixed embedded queries
# changes notify).
bench: $(BUILD)/bench_c | deps
	$(BUILD)/bench_c $(BUILD)/bench $(BENCH_ONLY)
	$(SWIFT) build -c release $(SWIFT_DEPENDENT) --package-path Benchmarks/swift --scratch-path Benchmarks/swift/.build
	Benchmarks/swift/.build/release/LarderBench $(BUILD)/bench $(BENCH_ONLY)

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/larder.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(BUILD)/liblarder.so $(DESTDIR)$(PREFIX)/lib/liblarder.so.0
	ln -sf liblarder.so.0 $(DESTDIR)$(PREFIX)/lib/liblarder.so
	install -m 644 $(BUILD)/liblarder.a $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@INCLUDEDIR@|$(PREFIX)/include|g' \
	    -e 's|@LIBDIR@|$(PREFIX)/lib|g' build-aux/larder.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/larder.pc

clean:
	rm -rf $(BUILD) .build Examples/swift/.build Benchmarks/swift/.build
