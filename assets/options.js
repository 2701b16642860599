import { mount } from './mount.js';

mount('mount_options');
