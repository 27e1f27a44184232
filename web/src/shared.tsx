// What every page shares with the shell (App.tsx): the page props, links that navigate without a
// reload, and the location chooser. Pages import this file, never App.tsx, so the shell and its
// pages form no import circle.
import type { ReactNode } from 'react';
import type { Location, Meta } from './api.ts';
import { CheckboxGroupMessage, GroupCheckbox, toggled } from './forms.tsx';

export interface Shared {
  meta: Meta;
  locations: Location[];
  navigate: (to: string) => void;
}

export function LocationChooser(props: {
  locations: Location[];
  value: string[] | null;
  onChange: (v: string[] | null) => void;
  error?: string;
  name: string;
}) {
  const specific = props.value !== null;
  return (
    <fieldset className="field">
      <legend>Locations</legend>
      <div>
        <label className="inline">
          <input type="radio" name={`${props.name}-scope`} checked={!specific} onChange={() => props.onChange(null)} /> All locations
        </label>
        <label className="inline">
          <input type="radio" name={`${props.name}-scope`} checked={specific} onChange={() => props.onChange([])} /> Specific locations
        </label>
      </div>
      {/* The message (none ticked) describes the location checkboxes, where it is put right. */}
      <CheckboxGroupMessage id={`${props.name}-locations-error`} text={props.error}>
        {specific && (
          <div className="checks">
            {props.locations.map((l) => (
              <label key={l.id} className="inline">
                <GroupCheckbox checked={props.value!.includes(l.id)} onChange={(e) => props.onChange(toggled(props.value!, l.id, e.target.checked))} /> {l.name}
              </label>
            ))}
          </div>
        )}
      </CheckboxGroupMessage>
    </fieldset>
  );
}

/** The LocationChooser's own check: "Specific locations" with none ticked. */
export const locationChoiceError = (ids: string[] | null) => (ids !== null && ids.length === 0 ? 'Choose at least one location, or All locations.' : undefined);

export const locationNames = (ids: string[] | null, locations: Location[]) =>
  ids === null ? 'All locations' : ids.map((id) => locations.find((l) => l.id === id)?.name ?? id.slice(0, 8)).join(', ');

export function Link({
  to,
  navigate,
  children,
  className,
  id,
}: {
  to: string;
  navigate: (to: string) => void;
  children: ReactNode;
  className?: string;
  id?: string;
}) {
  return (
    <a
      href={to}
      id={id}
      className={className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
