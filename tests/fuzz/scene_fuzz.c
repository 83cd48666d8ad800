/* scene_fuzz.c - libFuzzer target for the scene parser and the checks behind
 * it (core/scene.c), and for the model built from what passes (core/model.c).
 *
 * Input: INI text.  Lines starting with "@" are taken out and used as --set
 * overrides ("@grid.nx=64"), so the override path is fuzzed too.  Scenes that
 * pass are built into a model when their grid is small (a fuzzer should not
 * spend its time allocating 1e10 cells, which the CLI refuses by memory).
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "core/scene.h"
#include "core/util.h"

#define MAX_SETS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    char *text = malloc(size + 1), *sets_buf = malloc(size + 1);
    const char *sets[MAX_SETS];
    int nset = 0;
    size_t tl = 0, sl = 0;
    /* split: "@..." lines become overrides, the rest is the file */
    for (size_t i = 0; i < size;) {
        size_t j = i;
        while (j < size && data[j] != '\n')
            j++;
        const size_t n = j - i;
        if (n > 1 && data[i] == '@' && nset < MAX_SETS && !memchr(data + i, 0, n)) {
            memcpy(sets_buf + sl, data + i + 1, n - 1);
            sets[nset++] = sets_buf + sl;
            sl += n - 1;
            sets_buf[sl++] = 0;
        } else {
            memcpy(text + tl, data + i, n);
            tl += n;
            if (j < size)
                text[tl++] = '\n';
        }
        i = j + 1;
    }
    struct scene s;
    char err[ERRLEN];
    if (scene_load_text(&s, "fuzz.ini", text, tl, sets, nset, err, sizeof err) == 0) {
        if ((double)s.nx * s.ny * s.nz <= 1 << 20) {
            struct model m;
            if (model_build(&m, &s, err, sizeof err) == 0) {
                float v[4];
                if (m.nslots >= 4 || m.nslots == 0) {
                    float *all = m.nslots ? malloc(m.nslots * sizeof *all) : v;
                    model_slot_values_f(&m, s.steps / 2, all);
                    if (all != v)
                        free(all);
                }
                model_free(&m);
            }
        }
        scene_free(&s);
    } else if (!err[0]) {
        abort(); /* a failure must always say why */
    }
    free(text);
    free(sets_buf);
    return 0;
}
