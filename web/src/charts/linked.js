// linked.js -- the state the charts share: the visible x domain (positions),
// the hovered and the selected value (by name, so charts drawing different
// plans of one model -- arena and slots -- link up), and the hovered position.
// A tiny event hub: on('xdomain'|'hover'|'select', fn) -> off function.
export function createLinked() {
  const handlers = new Map();
  const emit = (type, ...args) => {
    for (const fn of handlers.get(type) ?? []) fn(...args);
  };
  const state = {
    xDomain: null, // [x0, x1] in positions, null = everything
    fullDomain: [0, 1],
    hover: null, // value name
    hoverPos: null, // position under the pointer
    selected: null, // value name
    on(type, fn) {
      if (!handlers.has(type)) handlers.set(type, new Set());
      handlers.get(type).add(fn);
      return () => handlers.get(type)?.delete(fn);
    },
    setFullDomain(d) {
      state.fullDomain = d;
      state.xDomain = null;
      emit('xdomain', null);
    },
    setXDomain(d, source = null) {
      const [f0, f1] = state.fullDomain;
      let [a, b] = d ?? [f0, f1];
      if (b - a >= f1 - f0 - 1e-9) {
        a = f0;
        b = f1;
      } else {
        if (a < f0) {
          b += f0 - a;
          a = f0;
        }
        if (b > f1) {
          a -= b - f1;
          b = f1;
        }
      }
      const full = a <= f0 && b >= f1;
      state.xDomain = full ? null : [a, b];
      emit('xdomain', source);
    },
    domain() {
      return state.xDomain ?? state.fullDomain;
    },
    setHover(name, pos = null, source = null) {
      if (name === state.hover && pos === state.hoverPos) return;
      state.hover = name;
      state.hoverPos = pos;
      emit('hover', source);
    },
    setSelected(name, source = null) {
      state.selected = name === state.selected ? null : name;
      emit('select', source);
    },
    select(name, source = null) {
      state.selected = name;
      emit('select', source);
    },
    clear() {
      handlers.clear();
    },
  };
  return state;
}
