// Tiny media samples for the content fixtures: a 1×1 red PNG and a short silent WAV.

/** A valid 1×1 red PNG (RGB, 8 bit), base64. */
export const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** The PNG's bytes, for resources that answer with a blob. */
export const redPixelBytes = (): Uint8Array => Uint8Array.from(Buffer.from(RED_PIXEL_PNG, "base64"));

/** 10 ms of 8 kHz, 8-bit mono silence as a RIFF/WAVE file, base64: small, yet a file any player opens. */
export const SILENT_WAV = (() => {
  const samples = 80;
  const wav = Buffer.alloc(44 + samples, 128); // 128 is silence for unsigned 8-bit PCM
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + samples, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24); // sample rate
  wav.writeUInt32LE(8000, 28); // byte rate
  wav.writeUInt16LE(1, 32); // block align
  wav.writeUInt16LE(8, 34); // bits per sample
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(samples, 40);
  return wav.toString("base64");
})();
