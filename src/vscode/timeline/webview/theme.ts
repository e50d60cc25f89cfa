/**
 * Canvas colours from the VS Code theme. A canvas cannot use CSS variables, so the webview reads the
 * `--vscode-*` variables VS Code sets on the document (getComputedStyle) and re-reads them when the
 * theme changes. Pure mapping from a variable reader to a Palette, with fallbacks for a theme that
 * leaves a variable unset.
 */
import type { Style } from './layout';

export type ThemeClass = 'light' | 'dark' | 'highContrast' | 'highContrastLight';

export interface Palette {
  background: string;
  foreground: string;
  muted: string;
  grid: string;
  gutter: string;
  laneAlt: string;
  separator: string;
  selection: string;
  /** Text on a bar. */
  barText: string;
  /** High-contrast themes outline shapes with this; undefined elsewhere. */
  contrastBorder?: string;
  styles: Record<Style, string>;
  font: string;
  fontSize: number;
}

/** The theme class from the body's classes (vscode-light, vscode-dark, vscode-high-contrast[-light]). */
export function themeClassOf(classes: string): ThemeClass {
  const c = ` ${classes} `;
  if (c.includes(' vscode-high-contrast-light ')) return 'highContrastLight';
  if (c.includes(' vscode-high-contrast ')) return 'highContrast';
  if (c.includes(' vscode-light ')) return 'light';
  return 'dark';
}

/** The theme's defaults for when a variable is unset (the values of VS Code's own default themes). */
const FALLBACK: Record<ThemeClass, Record<string, string>> = {
  dark: {
    bg: '#1e1e1e',
    fg: '#cccccc',
    muted: '#9d9d9d',
    border: '#454545',
    blue: '#3794ff',
    green: '#89d185',
    red: '#f14c4c',
    orange: '#d18616',
    yellow: '#cca700',
    purple: '#b180d7',
    focus: '#0078d4',
  },
  light: {
    bg: '#ffffff',
    fg: '#3b3b3b',
    muted: '#717171',
    border: '#e5e5e5',
    blue: '#1a85ff',
    green: '#388a34',
    red: '#e51400',
    orange: '#d18616',
    yellow: '#bf8803',
    purple: '#652d90',
    focus: '#005fb8',
  },
  highContrast: {
    bg: '#000000',
    fg: '#ffffff',
    muted: '#ffffff',
    border: '#6fc3df',
    blue: '#3794ff',
    green: '#89d185',
    red: '#f48771',
    orange: '#d18616',
    yellow: '#cca700',
    purple: '#b180d7',
    focus: '#f38518',
  },
  highContrastLight: {
    bg: '#ffffff',
    fg: '#292929',
    muted: '#292929',
    border: '#0f4a85',
    blue: '#0f4a85',
    green: '#388a34',
    red: '#b5200d',
    orange: '#8f4f00',
    yellow: '#7f6a00',
    purple: '#652d90',
    focus: '#006bbd',
  },
};

/**
 * Builds the palette. `cssVar(name)` returns the variable's value ('' when unset), e.g.
 * `name => getComputedStyle(document.body).getPropertyValue(name).trim()`.
 */
export function readPalette(cssVar: (name: string) => string, theme: ThemeClass): Palette {
  const fb = FALLBACK[theme];
  const v = (name: string, fallback: string) => cssVar(name) || fallback;
  const hc = theme === 'highContrast' || theme === 'highContrastLight';
  const background = v('--vscode-editor-background', fb.bg!);
  const blue = v('--vscode-charts-blue', fb.blue!);
  const green = v('--vscode-charts-green', fb.green!);
  const red = v('--vscode-charts-red', fb.red!);
  const orange = v('--vscode-charts-orange', fb.orange!);
  const yellow = v('--vscode-charts-yellow', fb.yellow!);
  const purple = v('--vscode-charts-purple', fb.purple!);
  const muted = v('--vscode-descriptionForeground', fb.muted!);
  const border = v('--vscode-panel-border', fb.border!);
  const fontSize = parseFloat(cssVar('--vscode-editor-font-size')) || 12;
  return {
    background,
    foreground: v('--vscode-editor-foreground', v('--vscode-foreground', fb.fg!)),
    muted,
    grid: v('--vscode-editorIndentGuide-background1', v('--vscode-editorIndentGuide-background', border)),
    gutter: v('--vscode-sideBar-background', background),
    laneAlt: v('--vscode-list-hoverBackground', background),
    separator: border,
    selection: v('--vscode-focusBorder', fb.focus!),
    barText: background,
    contrastBorder: hc ? v('--vscode-contrastBorder', fb.border!) : undefined,
    styles: {
      'bar-ok': blue,
      'bar-running': purple,
      'bar-cancelled': orange,
      'bar-error': red,
      'mark-ok': green,
      'mark-skipped': muted,
      'mark-error': red,
      'mark-inferred': yellow,
      page: background,
      retry: yellow,
    },
    font: `${Math.max(9, fontSize - 1)}px ${v('--vscode-editor-font-family', v('--vscode-font-family', 'monospace'))}`,
    fontSize,
  };
}
