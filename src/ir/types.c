/* types.c -- element types, static sizes and lookups over the IR. */
#include <string.h>

#include "memplan/memplan.h"
#include "util/strmap.h"

const char *memplan_version(void) { return MEMPLAN_VERSION; }

static const struct {
    const char *name;
    unsigned bits;
} DTYPES[] = {
    [MEMPLAN_DTYPE_UNDEFINED] = {"undefined", 0},
    [MEMPLAN_DTYPE_FLOAT] = {"float", 32},
    [MEMPLAN_DTYPE_UINT8] = {"uint8", 8},
    [MEMPLAN_DTYPE_INT8] = {"int8", 8},
    [MEMPLAN_DTYPE_UINT16] = {"uint16", 16},
    [MEMPLAN_DTYPE_INT16] = {"int16", 16},
    [MEMPLAN_DTYPE_INT32] = {"int32", 32},
    [MEMPLAN_DTYPE_INT64] = {"int64", 64},
    [MEMPLAN_DTYPE_STRING] = {"string", 0},
    [MEMPLAN_DTYPE_BOOL] = {"bool", 8},
    [MEMPLAN_DTYPE_FLOAT16] = {"float16", 16},
    [MEMPLAN_DTYPE_DOUBLE] = {"double", 64},
    [MEMPLAN_DTYPE_UINT32] = {"uint32", 32},
    [MEMPLAN_DTYPE_UINT64] = {"uint64", 64},
    [MEMPLAN_DTYPE_COMPLEX64] = {"complex64", 64},
    [MEMPLAN_DTYPE_COMPLEX128] = {"complex128", 128},
    [MEMPLAN_DTYPE_BFLOAT16] = {"bfloat16", 16},
    [MEMPLAN_DTYPE_FLOAT8E4M3FN] = {"float8e4m3fn", 8},
    [MEMPLAN_DTYPE_FLOAT8E4M3FNUZ] = {"float8e4m3fnuz", 8},
    [MEMPLAN_DTYPE_FLOAT8E5M2] = {"float8e5m2", 8},
    [MEMPLAN_DTYPE_FLOAT8E5M2FNUZ] = {"float8e5m2fnuz", 8},
    [MEMPLAN_DTYPE_UINT4] = {"uint4", 4},
    [MEMPLAN_DTYPE_INT4] = {"int4", 4},
    [MEMPLAN_DTYPE_FLOAT4E2M1] = {"float4e2m1", 4},
    [MEMPLAN_DTYPE_FLOAT8E8M0] = {"float8e8m0", 8},
    [MEMPLAN_DTYPE_UINT2] = {"uint2", 2},
    [MEMPLAN_DTYPE_INT2] = {"int2", 2},
};

#define N_DTYPES ((int32_t)(sizeof DTYPES / sizeof DTYPES[0]))

unsigned memplan_dtype_bits(int32_t dtype) { return dtype >= 0 && dtype < N_DTYPES ? DTYPES[dtype].bits : 0; }

const char *memplan_dtype_name(int32_t dtype) { return dtype >= 0 && dtype < N_DTYPES ? DTYPES[dtype].name : NULL; }

bool memplan_type_static_elems(const memplan_type *type, uint64_t *elems) {
    if (type->kind != MEMPLAN_TYPE_TENSOR || type->rank < 0) return false;
    uint64_t n = 1;
    bool zero = false;
    for (int32_t i = 0; i < type->rank; i++) {
        const memplan_dim *d = &type->dims[i];
        if (d->kind != MEMPLAN_DIM_VALUE) return false;
        if (d->value == 0) zero = true;
        else if (n > UINT64_MAX / (uint64_t)d->value)
            return false;
        else
            n *= (uint64_t)d->value;
    }
    *elems = zero ? 0 : n;
    return true;
}

bool memplan_type_static_bytes(const memplan_type *type, uint64_t *bytes) {
    uint64_t elems;
    unsigned bits = memplan_dtype_bits(type->elem_type);
    if (bits == 0 || !memplan_type_static_elems(type, &elems)) return false;
    if (elems > (UINT64_MAX - 7) / bits) return false;
    *bytes = (elems * bits + 7) / 8;
    return true;
}

int32_t memplan_graph_find(const memplan_graph *graph, const char *name) {
    if (!graph || !graph->internal || !name) return -1;
    return mp_strmap_get((const mp_strmap *)graph->internal, name);
}

int64_t memplan_model_opset(const memplan_model *model, const char *domain) {
    bool want_default = !domain || !domain[0] || strcmp(domain, "ai.onnx") == 0;
    for (int32_t i = 0; i < model->n_opsets; i++) {
        const char *d = model->opsets[i].domain;
        bool is_default = !d[0] || strcmp(d, "ai.onnx") == 0;
        if (want_default ? is_default : strcmp(d, domain) == 0) return model->opsets[i].version;
    }
    return -1;
}
