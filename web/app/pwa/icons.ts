import { PNG } from 'pngjs';
import type { Plugin } from 'vite';

/**
 * The household app's icons, drawn at build time (no binary files in git): a storage jar, white
 * on the app's green, at 192 and 512 px, and a maskable 512 px whose jar stays inside the safe
 * zone (the inner 80 %) that launchers keep when they crop to a circle or a squircle.
 */
const GREEN = [0x2f, 0x6f, 0x4e] as const;
const WHITE = [0xff, 0xff, 0xff] as const;
const LABEL = [0xf2, 0xc1, 0x4e] as const;

type Rgb = readonly [number, number, number];

/** Inside a rectangle with rounded corners (all in units of the icon's side, 0–1)? */
function inRoundedRect(
  x: number,
  y: number,
  box: { left: number; top: number; right: number; bottom: number; radius: number },
): boolean {
  if (x < box.left || x > box.right || y < box.top || y > box.bottom) return false;
  const cx = Math.min(Math.max(x, box.left + box.radius), box.right - box.radius);
  const cy = Math.min(Math.max(y, box.top + box.radius), box.bottom - box.radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= box.radius ** 2;
}

/** The colour at (x, y): the jar (lid, body, label) scaled by `scale` around the centre. */
function colourAt(x: number, y: number, scale: number, rounded: boolean): Rgb | null {
  if (rounded && !inRoundedRect(x, y, { left: 0, top: 0, right: 1, bottom: 1, radius: 0.18 })) {
    return null;
  }
  const u = (x - 0.5) / scale + 0.5;
  const v = (y - 0.5) / scale + 0.5;
  const lid = { left: 0.3, top: 0.14, right: 0.7, bottom: 0.26, radius: 0.03 };
  const body = { left: 0.22, top: 0.3, right: 0.78, bottom: 0.86, radius: 0.09 };
  const label = { left: 0.3, top: 0.48, right: 0.7, bottom: 0.68, radius: 0.03 };
  if (inRoundedRect(u, v, label)) return LABEL;
  if (inRoundedRect(u, v, lid) || inRoundedRect(u, v, body)) return WHITE;
  return GREEN;
}

/** A square PNG of `size` px, each pixel sampled 4 times (smooth edges). */
function drawIcon(size: number, options: { maskable: boolean }): Buffer {
  const png = new PNG({ width: size, height: size });
  const offsets = [0.25, 0.75];
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (const ox of offsets) {
        for (const oy of offsets) {
          const colour = colourAt(
            (px + ox) / size,
            (py + oy) / size,
            options.maskable ? 0.7 : 1,
            !options.maskable,
          );
          if (!colour) continue;
          r += colour[0];
          g += colour[1];
          b += colour[2];
          a += 1;
        }
      }
      const i = (py * size + px) * 4;
      png.data[i] = a ? Math.round(r / a) : 0;
      png.data[i + 1] = a ? Math.round(g / a) : 0;
      png.data[i + 2] = a ? Math.round(b / a) : 0;
      png.data[i + 3] = Math.round((a / 4) * 255);
    }
  }
  return PNG.sync.write(png);
}

/** A Vite plugin that emits icons/icon-192.png, icons/icon-512.png and icons/maskable-512.png. */
export function appIcons(): Plugin {
  return {
    name: 'larder-app-icons',
    apply: 'build',
    generateBundle() {
      const icons = [
        ['icons/icon-192.png', drawIcon(192, { maskable: false })],
        ['icons/icon-512.png', drawIcon(512, { maskable: false })],
        ['icons/maskable-512.png', drawIcon(512, { maskable: true })],
      ] as const;
      for (const [fileName, source] of icons) {
        this.emitFile({ type: 'asset', fileName, source });
      }
    },
  };
}
