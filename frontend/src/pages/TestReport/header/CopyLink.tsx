/** Copies the link to this view (window, cases, tab), or shows it where the clipboard is out of reach. */
import { useState } from "react";

export function CopyLink() {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () => {
    const url = window.location.href;
    const done = () => setCopied("Link copied");
    if (navigator.clipboard?.writeText) {
      navigator.clipboard.writeText(url).then(done, () => setCopied(url));
    } else {
      setCopied(url); // no clipboard (plain http on another host): show the link to copy by hand
    }
  };
  return (
    <>
      <button type="button" onClick={copy} title="Copy the link to this view (window, cases, tab)">
        Copy link
      </button>
      {copied && (
        <span className="copied hint" role="status">
          {copied}
        </span>
      )}
    </>
  );
}
