/*
 * gen_branchy.h -- random branchy ONNX graphs for the scheduling bench:
 * U-Nets and feature pyramids (FPN with detector heads), chained into
 * models of any size. Nodes are custom ops without a shape rule, so every
 * size is the declared one (float, C x H x W) and the graph is only
 * dependencies and sizes, as the schedulers see it.
 *
 * The file order is the one an exporter writes from a forward() as people
 * write them, picked at random per net: a U-Net's skip projections right
 * after the encoder level that makes them (or just before the decoder level
 * reads them); an FPN's lateral convolutions all at once after the backbone
 * (or each before its merge), its heads level by level (or branch by branch);
 * an Inception block's branches layer by layer (or branch by branch).
 */
#ifndef MEMPLAN_BENCH_GEN_BRANCHY_H
#define MEMPLAN_BENCH_GEN_BRANCHY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model_builder.h"

typedef struct gen {
    mb_graph *g;
    uint64_t rng;
    int counter;
    int nodes;
} gen;

static inline uint32_t gen_below(gen *G, uint32_t n) { /* xorshift64* */
    G->rng ^= G->rng >> 12;
    G->rng ^= G->rng << 25;
    G->rng ^= G->rng >> 27;
    return (uint32_t)((G->rng * 2685821657736338717ull) >> 33) % n;
}

/* A new value name v<N> declared float[c, h, w], in `name` (64 bytes). */
static inline void gen_value(gen *G, int c, int h, char *name) {
    char dims[64];
    snprintf(name, 64, "v%d", G->counter++);
    snprintf(dims, sizeof dims, "%d,%d,%d", c, h, h);
    mb_value(G->g, name, 1, dims);
}

/* One node op(inputs) -> a new value of c x h x h, its name in out. */
static inline void gen_node(gen *G, const char *op, const char *inputs, int c, int h, char *out) {
    gen_value(G, c, h, out);
    mb_node(G->g, op, inputs, out);
    G->nodes++;
}

#define GEN_MAX_BRANCHES 4

/* An Inception-style block from cur (in place): 2-4 branches, each widening
 * (x2 to x4 channels) and narrowing back, concatenated. Exported breadth
 * first (every branch's first layer, then every second) or branch by branch. */
static inline void gen_inception(gen *G, char *cur, int c, int h) {
    int k = 2 + (int)gen_below(G, GEN_MAX_BRANCHES - 1);
    char wide[GEN_MAX_BRANCHES][64], narrow[GEN_MAX_BRANCHES][64], ins[GEN_MAX_BRANCHES * 64 + 8];
    int width[GEN_MAX_BRANCHES];
    bool breadth = gen_below(G, 2);
    for (int b = 0; b < k; b++) width[b] = c * (2 + (int)gen_below(G, 3));
    for (int b = 0; b < k; b++) {
        gen_node(G, "Widen", cur, width[b], h, wide[b]);
        if (!breadth) gen_node(G, "Narrow", wide[b], c / k > 0 ? c / k : 1, h, narrow[b]);
    }
    for (int b = 0; breadth && b < k; b++) gen_node(G, "Narrow", wide[b], c / k > 0 ? c / k : 1, h, narrow[b]);
    ins[0] = '\0';
    for (int b = 0; b < k; b++) snprintf(ins + strlen(ins), sizeof ins - strlen(ins), "%s%s", b ? "," : "", narrow[b]);
    gen_node(G, "Concat4", ins, c, h, cur);
}

/* 1-2 convolutions at one size, from cur (in place); one in three an
 * Inception block instead. */
static inline void gen_convs(gen *G, char *cur, int c, int h) {
    char in[64];
    if (gen_below(G, 3) == 0) {
        gen_inception(G, cur, c, h);
        return;
    }
    for (uint32_t k = 1 + gen_below(G, 2); k > 0; k--) {
        snprintf(in, sizeof in, "%s", cur);
        gen_node(G, "Conv3", in, c, h, cur);
    }
}

#define GEN_MAX_LEVELS 6

/* A U-Net from value `in` (c x h x h) to a new value in out. */
static inline void gen_unet(gen *G, const char *in, int c, int h, char *out) {
    int depth = 3 + (int)gen_below(G, GEN_MAX_LEVELS - 2);
    while (h >> depth < 1) depth--;
    char cur[64], skip[GEN_MAX_LEVELS][64], proj[GEN_MAX_LEVELS][64], t[64], ins[160];
    int pc[GEN_MAX_LEVELS], cs[GEN_MAX_LEVELS];
    bool early[GEN_MAX_LEVELS];
    snprintf(cur, sizeof cur, "%s", in);
    int lc = c, lh = h;
    for (int l = 0; l < depth; l++) { /* encoder */
        gen_convs(G, cur, lc, lh);
        snprintf(skip[l], 64, "%s", cur);
        cs[l] = lc;
        static const int factor[] = {0, 1, 2, 4}; /* 0: no projection; else x/2, x1, x2 channels */
        int f = factor[gen_below(G, 4)];
        pc[l] = f ? lc * f / 2 : 0;
        early[l] = pc[l] && gen_below(G, 2);
        if (early[l]) gen_node(G, "SkipProj", skip[l], pc[l], lh, proj[l]);
        snprintf(t, sizeof t, "%s", cur);
        lc *= 2;
        lh /= 2;
        gen_node(G, "Down", t, lc, lh, cur);
    }
    gen_convs(G, cur, lc, lh);             /* bottleneck */
    for (int l = depth - 1; l >= 0; l--) { /* decoder */
        lc /= 2;
        lh *= 2;
        snprintf(t, sizeof t, "%s", cur);
        gen_node(G, "Up", t, lc, lh, cur);
        if (pc[l] && !early[l]) gen_node(G, "SkipProj", skip[l], pc[l], lh, proj[l]);
        snprintf(ins, sizeof ins, "%s,%s", cur, pc[l] ? proj[l] : skip[l]);
        gen_node(G, "Merge", ins, cs[l], lh, cur);
        gen_convs(G, cur, cs[l], lh);
    }
    snprintf(out, 64, "%s", cur);
}

/* A feature pyramid with heads from `in`; the heads' outputs are joined
 * into a new value (c x h x h) in out, the next net's input. */
static inline void gen_fpn(gen *G, const char *in, int c, int h, char *out) {
    int levels = 3 + (int)gen_below(G, 3), fc = 2 * c;
    while (h >> levels < 1) levels--;
    char cur[64], feat[GEN_MAX_LEVELS][64], lat[GEN_MAX_LEVELS][64], p[GEN_MAX_LEVELS][64], t[64], ins[160];
    char head[GEN_MAX_LEVELS][2][64];
    int fh[GEN_MAX_LEVELS];
    snprintf(cur, sizeof cur, "%s", in);
    int lc = c, lh = h;
    for (int l = 0; l < levels; l++) { /* backbone */
        lc *= 2;
        lh /= 2;
        snprintf(t, sizeof t, "%s", cur);
        gen_node(G, "Down", t, lc, lh, cur);
        gen_convs(G, cur, lc, lh);
        snprintf(feat[l], 64, "%s", cur);
        fh[l] = lh;
    }
    bool eager = gen_below(G, 2);
    for (int l = 0; eager && l < levels; l++) gen_node(G, "Lateral", feat[l], fc, fh[l], lat[l]);
    for (int l = levels - 1; l >= 0; l--) { /* top-down */
        if (!eager) gen_node(G, "Lateral", feat[l], fc, fh[l], lat[l]);
        if (l == levels - 1) {
            snprintf(p[l], 64, "%s", lat[l]);
            continue;
        }
        gen_node(G, "Up", p[l + 1], fc, fh[l], t);
        snprintf(ins, sizeof ins, "%s,%s", t, lat[l]);
        gen_node(G, "Merge", ins, fc, fh[l], p[l]);
    }
    bool level_major = gen_below(G, 2);
    int depth = 2 + (int)gen_below(G, 3);
    for (int a = 0; a < levels * 2; a++) { /* heads: (level, branch) in one of two orders */
        int l = level_major ? a / 2 : a % levels, br = level_major ? a % 2 : a / levels;
        snprintf(head[l][br], 64, "%s", p[l]);
        for (int k = 0; k < depth; k++) {
            snprintf(t, sizeof t, "%s", head[l][br]);
            gen_node(G, br ? "BoxConv" : "ClsConv", t, fc, fh[l], head[l][br]);
        }
        snprintf(t, sizeof t, "%s", head[l][br]);
        gen_node(G, br ? "BoxOut" : "ClsOut", t, br ? 4 : 1, fh[l], head[l][br]);
    }
    /* the next net's input: a join of every head output (an n-ary node) */
    char all[GEN_MAX_LEVELS * 2 * 64 + 8];
    all[0] = '\0';
    for (int l = 0; l < levels; l++)
        for (int br = 0; br < 2; br++)
            snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? "," : "", head[l][br]);
    (void)lc;
    gen_node(G, "Join", all, c, h, out);
}

/* A model of chained nets with at least `nodes` nodes; kind 0 U-Nets,
 * 1 pyramids, 2 both at random. Packed ONNX bytes (free them). */
static inline uint8_t *gen_model(uint64_t seed, int nodes, int kind, size_t *len, int *n_nodes) {
    gen G = {mb_new_graph("branchy"), seed * 0x9E3779B97F4A7C15ull + 1, 0, 0};
    int c = 4, h = 32;
    char cur[64], next[64];
    snprintf(cur, sizeof cur, "x");
    mb_input(G.g, "x", 1, "4,32,32");
    while (G.nodes < nodes) {
        int k = kind == 2 ? (int)gen_below(&G, 2) : kind;
        if (k == 0) gen_unet(&G, cur, c, h, next);
        else
            gen_fpn(&G, cur, c, h, next);
        snprintf(cur, sizeof cur, "%s", next);
    }
    mb_output(G.g, cur, 1, "4,32,32");
    *n_nodes = G.nodes;
    return mb_pack(G.g, len);
}

#endif
