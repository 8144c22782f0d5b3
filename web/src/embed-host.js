// embed-host.js -- the example host page (embed.html): <memplan-view> comes
// from importing embed.js; a second view is mounted on #mounted when the page
// is opened with ?mount=URL (the browser tests use it).
import './embed-host.css';
import './app/view.css'; // the visualizer's styles (embed.js imports none)
import { mount } from './embed.js';

const url = new URLSearchParams(location.search).get('mount');
if (url) {
  const view = mount(document.getElementById('mounted'), { src: url });
  view.on('state', (s) => {
    document.getElementById('mounted').dataset.state = s;
  });
  window.mountedView = view;
}
