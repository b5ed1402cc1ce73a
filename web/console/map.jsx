// A map of zones' outlines, tiles and places, drawn by Leaflet on a canvas.
// Without a basemap (the default) the outlines alone say where things are,
// which needs nothing from outside; a tile URL set on the server
// (SVC_CONSOLE_TILES) adds one.

import L from 'leaflet';
import { useEffect, useRef } from 'preact/hooks';

function basemap() {
  const m = document.querySelector('meta[name="svc-tiles"]');
  return m ? m.content : '';
}

// ZoneMap draws zones ([{label, polygons}]), tiles ([[w, s, e, n]] with
// an optional done flag per tile) and places ([{lat, lon, name}]). label
// names the map for screen readers; summary is the text that says what it
// shows.
export function ZoneMap({ label, summary, zones = [], tiles = [], done, places = [] }) {
  const el = useRef(null);
  const map = useRef(null);
  const layers = useRef(null);
  useEffect(() => {
    const m = L.map(el.current, { preferCanvas: true, zoomSnap: 0.25, attributionControl: !!basemap() });
    const url = basemap();
    if (url) L.tileLayer(url, { maxZoom: 18, attribution: '&copy; OpenStreetMap' }).addTo(m);
    m.setView([46.6, 2.4], 5);
    layers.current = L.layerGroup().addTo(m);
    map.current = m;
    return () => m.remove();
  }, []);
  useEffect(() => {
    const g = layers.current;
    if (!g) return;
    g.clearLayers();
    const all = [];
    for (const z of zones) {
      const layer = L.geoJSON({ type: 'MultiPolygon', coordinates: z.polygons }, {
        style: { color: '#0b57d0', weight: 2, fillOpacity: 0.05 },
      });
      layer.addTo(g);
      all.push(layer.getBounds());
    }
    tiles.forEach((t, i) => {
      const b = [[t[1], t[0]], [t[3], t[2]]];
      const isDone = done && done[i];
      L.rectangle(b, {
        color: isDone ? '#146c2e' : '#b3261e', weight: 1, opacity: 0.6,
        fillOpacity: isDone ? 0.15 : 0.03, interactive: false,
      }).addTo(g);
      if (!zones.length) all.push(L.latLngBounds(b));
    });
    for (const p of places) {
      L.circleMarker([p.lat, p.lon], { radius: 3, color: '#1b1f24', weight: 1, fillOpacity: 0.7 })
        .bindTooltip(p.name || '')
        .addTo(g);
    }
    const bounds = all.reduce((acc, b) => (acc ? acc.extend(b) : L.latLngBounds(b.getSouthWest(), b.getNorthEast())), null);
    if (bounds && bounds.isValid()) map.current.fitBounds(bounds, { padding: [12, 12] });
  }, [zones, tiles, done, places]);
  return (
    <figure class="map">
      <div ref={el} class="map-canvas" role="region" aria-label={label} />
      {summary && <figcaption>{summary}</figcaption>}
    </figure>
  );
}
