/* ops_nn.c -- shape rules of the nn family (to be filled). */
#include "shapes/rules.h"

const mp_rule mp_rules_nn[] = {
    {NULL, NULL, NULL},
};
