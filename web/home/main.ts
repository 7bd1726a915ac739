import QRCode from 'qrcode';
import './home.css';

/** Draws the QR code of the APK link the server rendered into the page. */
async function drawQrCode(): Promise<void> {
  const canvas = document.querySelector<HTMLCanvasElement>('canvas#qr');
  const url = canvas?.dataset.url;
  if (!canvas || !url) return;
  try {
    await QRCode.toCanvas(canvas, url, {
      errorCorrectionLevel: 'M',
      margin: 4,
      width: 264,
      color: { dark: '#000000', light: '#ffffff' },
    });
    canvas.classList.add('drawn');
    canvas.dataset.drawn = 'true';
  } catch {
    canvas.hidden = true;
  }
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => void drawQrCode());
} else {
  void drawQrCode();
}
