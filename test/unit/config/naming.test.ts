// Issue 15: the naming profile, from --naming, EXPORTER_NAMING or `naming:` in the config file.
import { describe, expect, it } from 'vitest';
import { configLoader } from './load-with.js';

const { load, problem } = configLoader('rmqexp-naming-');

describe('naming configuration', () => {
  it('defaults to the native names, for every target', () => {
    const config = load([]);
    expect(config.naming).toBe('native');
    expect(config.targets.map((t) => t.naming)).toEqual(['native']);
  });

  it('is read from the file, the environment and the flag, in that order of precedence', () => {
    expect(load([], {}, 'naming: kbudde\n').naming).toBe('kbudde');
    expect(load([], { EXPORTER_NAMING: 'kbudde' }).naming).toBe('kbudde');
    expect(load(['--naming=kbudde']).naming).toBe('kbudde');
    expect(load([], { EXPORTER_NAMING: 'native' }, 'naming: kbudde\n').naming).toBe('native');
    expect(load(['--naming', 'native'], { EXPORTER_NAMING: 'kbudde' }).naming).toBe('native');
  });

  it('applies to every entry of targets:', () => {
    const yaml = 'naming: kbudde\ntargets:\n  - name: a\n    url: http://a:15672\n  - name: b\n    url: http://b:15672\n';
    expect(load([], {}, yaml).targets.map((t) => t.naming)).toEqual(['kbudde', 'kbudde']);
  });

  it('refuses other values, naming the key, where it came from and the values allowed', () => {
    expect(problem(['--naming=kbude'])).toMatch(/flag --naming: key "naming".*"native".*"kbudde"/);
    expect(problem([], { EXPORTER_NAMING: 'KBUDDE' })).toMatch(/environment variable EXPORTER_NAMING: key "naming".*"native".*"kbudde"/);
    expect(problem([], {}, 'naming: prometheus\n')).toMatch(/key "naming".*"native".*"kbudde"/);
  });
});
