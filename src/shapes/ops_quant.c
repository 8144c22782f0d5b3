/* ops_quant.c -- shape rules of the quant family (to be filled). */
#include "shapes/rules.h"

const mp_rule mp_rules_quant[] = {
    {NULL, NULL, NULL},
};
