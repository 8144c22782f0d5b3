/* ops_contrib.c -- shape rules of the contrib family (to be filled). */
#include "shapes/rules.h"

const mp_rule mp_rules_contrib[] = {
    {NULL, NULL, NULL},
};
