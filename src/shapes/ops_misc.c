/* ops_misc.c -- shape rules of the misc family (to be filled). */
#include "shapes/rules.h"

const mp_rule mp_rules_misc[] = {
    {NULL, NULL, NULL},
};
