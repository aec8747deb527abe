// libwebp's own animation decoder (WebPAnimDecoder), the reference of gifx's WebP input (issue 35).
// Two uses, one program, built with `cc webp_anim_decode.c -lwebpdemux -lwebp`:
//   webp_anim_decode [--threads 0|1] [--reps N] FILE            decode + composite every frame, write
//       nothing (the peer of `gifx frames FILE --null` in Benchmarks/animated_decode_bench.py);
//   webp_anim_decode --dump OUT.rgba FILE                        also write every canvas (RGBA, 8 bits,
//       straight alpha, width*height*4 bytes each) to OUT.rgba (Tests/Conformance/conformance.py).
// Either way it prints one JSON line: canvas size, loop count, background colour, frame count and the
// timestamps (ms, the end of each frame as WebPAnimDecoderGetNext reports it). Exit 65 with one line on
// stderr when libwebp refuses the file or a frame.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/demux.h>

static int fail(const char *what, const char *path) {
    fprintf(stderr, "webp_anim_decode: %s: %s\n", path, what);
    return 65;
}

int main(int argc, char **argv) {
    const char *dump = NULL, *path = NULL;
    int threads = 0, reps = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dump") && i + 1 < argc) dump = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else path = argv[i];
    }
    if (!path || reps < 1) {
        fprintf(stderr, "usage: webp_anim_decode [--threads 0|1] [--reps N] [--dump OUT.rgba] FILE\n");
        return 64;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return fail("cannot open", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc(size > 0 ? (size_t)size : 1);
    if (!bytes || fread(bytes, 1, (size_t)size, f) != (size_t)size) return fail("cannot read", path);
    fclose(f);
    FILE *out = dump ? fopen(dump, "wb") : NULL;
    if (dump && !out) return fail("cannot write the dump", dump);

    WebPData data = {bytes, (size_t)size};
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return fail("libwebp version mismatch", path);
    options.color_mode = MODE_RGBA;
    options.use_threads = threads;
    int frames = 0;
    for (int rep = 0; rep < reps; rep++) {
        WebPAnimDecoder *decoder = WebPAnimDecoderNew(&data, &options);
        if (!decoder) return fail("WebPAnimDecoderNew refused the file", path);
        WebPAnimInfo info;
        if (!WebPAnimDecoderGetInfo(decoder, &info)) return fail("WebPAnimDecoderGetInfo failed", path);
        const int last = rep == reps - 1;
        if (last) printf("{\"width\":%u,\"height\":%u,\"loop\":%u,\"background\":%u,\"frames\":%u,\"timestamps\":[",
                         info.canvas_width, info.canvas_height, info.loop_count, info.bgcolor, info.frame_count);
        frames = 0;
        while (WebPAnimDecoderHasMoreFrames(decoder)) {
            uint8_t *canvas;
            int timestamp;
            if (!WebPAnimDecoderGetNext(decoder, &canvas, &timestamp)) {
                if (last) printf("]}\n");
                WebPAnimDecoderDelete(decoder);
                return fail("a frame does not decode", path);
            }
            if (last) printf("%s%d", frames ? "," : "", timestamp);
            if (out && last) fwrite(canvas, 1, (size_t)info.canvas_width * info.canvas_height * 4, out);
            frames++;
        }
        if (last) printf("]}\n");
        WebPAnimDecoderDelete(decoder);
    }
    if (out && fclose(out) != 0) return fail("cannot write the dump", dump);
    free(bytes);
    return 0;
}
