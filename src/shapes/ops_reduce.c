/* ops_reduce.c -- shape rules of the reduce family (to be filled). */
#include "shapes/rules.h"

const mp_rule mp_rules_reduce[] = {
    {NULL, NULL, NULL},
};
