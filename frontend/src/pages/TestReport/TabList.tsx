/** The report's tab switcher: one button per section (WAI-ARIA tabs), arrow keys and Home/End move between them. */
import { useRef } from "react";
import { TABS, TAB_LABELS, type Tab } from "../../lib/viewState";

export function TabList({ tab, onTab }: { tab: Tab; onTab: (tab: Tab) => void }) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  // Arrow keys move between tabs, as the WAI-ARIA tabs pattern expects.
  const onKey = (e: React.KeyboardEvent, i: number) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    const jump = e.key === "Home" ? 0 : e.key === "End" ? TABS.length - 1 : null;
    if (!step && jump === null) return;
    e.preventDefault();
    const next = jump ?? (i + step + TABS.length) % TABS.length;
    const target = TABS[next];
    if (target) {
      onTab(target);
      refs.current[next]?.focus();
    }
  };
  return (
    <div className="tabs" role="tablist" aria-label="Report sections">
      {TABS.map((t, i) => (
        <button
          key={t}
          ref={(el) => {
            refs.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${t}`}
          aria-selected={t === tab}
          aria-controls="tab-panel"
          tabIndex={t === tab ? 0 : -1}
          data-tab={t}
          onClick={() => onTab(t)}
          onKeyDown={(e) => onKey(e, i)}
        >
          {TAB_LABELS[t]}
        </button>
      ))}
    </div>
  );
}
