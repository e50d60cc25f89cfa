/**
 * The status bar item: context, objects, load progress and sync-loop state; a click shows the
 * timeline. Redraws at most every 250 ms however often it is poked (a load reports per task). Glue
 * only; the text is ../statusText.ts.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../../app/commandIds';
import { statusBarText, type StatusState } from '../../app/statusText';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('kubeloop.status', vscode.StatusBarAlignment.Left, 50);
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly state: () => StatusState) {
    this.item.name = 'KubeLoop';
    this.item.command = COMMANDS.showTimeline.id;
    this.draw();
    this.item.show();
  }

  update(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.draw();
    }, 250);
  }

  private draw(): void {
    const { text, tooltip } = statusBarText(this.state());
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.item.dispose();
  }
}
