// A short beep for each move, off until the player turns it on (the choice is kept in
// localStorage). WebAudio makes the tone, so there is no sound file to load.
const STORAGE_KEY = "arena-sound";
const BEEP_HZ = 660;
const BEEP_S = 0.08;
const VOLUME = 0.15;

export class Sound {
  constructor() {
    this.on = localStorage.getItem(STORAGE_KEY) === "on";
    this.context = null;
  }

  set(on) {
    this.on = on;
    localStorage.setItem(STORAGE_KEY, on ? "on" : "off");
    if (on) this.context ??= new AudioContext(); // made on the click that turns it on
  }

  move() {
    if (!this.on) return;
    this.context ??= new AudioContext();
    const now = this.context.currentTime;
    const tone = this.context.createOscillator();
    const gain = this.context.createGain();
    tone.frequency.value = BEEP_HZ;
    gain.gain.setValueAtTime(VOLUME, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + BEEP_S);
    tone.connect(gain).connect(this.context.destination);
    tone.start(now);
    tone.stop(now + BEEP_S);
  }
}
