// The events of a stack, following live: a virtualised list, only the rows in view (and a
// few either side) are in the DOM, whether the stack has ten events or a hundred thousand.

import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { linkOf, stackOfLink } from "./api.js";
import { stateOf, phaseOf } from "./states.js";

export const ROW_H = 28;
const OVERSCAN = 8;

function stackName(event) {
  if (event.stack_name) return event.stack_name;
  const owner = stackOfLink(linkOf(event, "stack"));
  return owner ? owner.name : "";
}

function time(value) {
  return value ? value.replace("T", " ").replace(/Z$/, "") : "";
}

export function EventList({ feed }) {
  const [count, setCount] = useState(feed.items.length);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(360);
  const boxRef = useRef(null);
  const follow = useRef(true);

  useEffect(() => feed.subscribe(() => setCount(feed.items.length)), [feed]);
  useLayoutEffect(() => {
    const box = boxRef.current;
    if (box && follow.current) box.scrollTop = box.scrollHeight;
  }, [count]);
  useEffect(() => {
    const box = boxRef.current;
    if (!box) return undefined;
    const measure = () => setHeight(box.clientHeight || 360);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  const onScroll = (e) => {
    const box = e.currentTarget;
    follow.current = box.scrollTop + box.clientHeight >= box.scrollHeight - ROW_H;
    setTop(box.scrollTop);
  };
  const first = Math.max(0, Math.floor(top / ROW_H) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / ROW_H) + OVERSCAN);
  const rows = [];
  for (let i = first; i < last; i += 1) {
    const event = feed.items[i];
    const state = stateOf(event);
    rows.push(
      <div
        key={event.id}
        class={`event-row state-${phaseOf(state)}`}
        role="row"
        aria-rowindex={i + 2}
        data-event={event.id}
        ref={(el) => el && el.style.setProperty("top", `${i * ROW_H}px`)}
      >
        <span role="cell" class="ev-time">{time(event.event_time)}</span>
        <span role="cell" class="ev-stack">{stackName(event)}</span>
        <span role="cell" class="ev-name">{event.resource_name}</span>
        <span role="cell" class="ev-state">{state}</span>
        <span role="cell" class="ev-reason" title={event.resource_status_reason || ""}>{event.resource_status_reason || ""}</span>
      </div>,
    );
  }
  return (
    <div class="events">
    <div role="table" aria-label="Events" aria-rowcount={count + 1}>
      <div class="event-head" role="row" aria-rowindex={1}>
        <span role="columnheader" class="ev-time">Time</span>
        <span role="columnheader" class="ev-stack">Stack</span>
        <span role="columnheader" class="ev-name">Resource</span>
        <span role="columnheader" class="ev-state">Status</span>
        <span role="columnheader" class="ev-reason">Reason</span>
      </div>
      <div class="event-scroll" ref={boxRef} onScroll={onScroll} tabindex="0" role="rowgroup" aria-label="Event rows">
        <div class="event-spacer" role="presentation" ref={(el) => el && el.style.setProperty("height", `${count * ROW_H}px`)}>
          {rows}
        </div>
      </div>
    </div>
      <p class="event-count">{count} events</p>
    </div>
  );
}

/** The events seen so far, without duplicates, in the order they happened. */
export class EventFeed {
  constructor() {
    this.items = [];
    this.ids = new Set();
    this.listeners = new Set();
  }

  add(events) {
    let added = 0;
    for (const event of events) {
      if (!event || this.ids.has(event.id)) continue;
      this.ids.add(event.id);
      this.items.push(event);
      added += 1;
    }
    if (added) for (const listener of this.listeners) listener();
    return added;
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
